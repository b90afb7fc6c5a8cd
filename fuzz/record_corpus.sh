#!/bin/bash
# record_corpus.sh OUTDIR: records the real sessions the seed corpus of
# fuzz/corpus/ is made from: build/utraced --remote-debug serving real gdb
# sessions on tests/inferiors programs (TCP, extended-remote, a pty of
# --mount), and a ustrace joining a process utraced holds, its traffic
# taken with strace (--remote-debug does not log the trace's
# notifications). The logs land in OUTDIR; fuzz/split_corpus.py then cuts
# them into the corpus files. Run as root from the top of the tree after
# `make check` has built everything; not part of any test.
set -u
OUT=$(realpath -m "${1:?usage: record_corpus.sh OUTDIR}")
mkdir -p "$OUT"
. "$(dirname "$0")/../tests/lib/e2e.sh"

BL=$INFDIR/breakloop
GDB_SETUP+=(-iex 'set remotetimeout 30')

# session NAME CMD...: the last server's stderr (its --remote-debug log) to OUT/NAME.log
keep() {
	cp "$SERVER_ERR" "$OUT/$1.log"
}

# 1. breakpoints, stepping, registers, memory, a watchpoint, to the exit
start_server --remote-debug :0 "$BL" 8 || bail "no server"
remote_gdb "$BL" 'break bump' 'continue' 'bt' 'info registers rip' 'p counter' \
	'x/8xb &counter' 'next' 'step' 'stepi' 'finish' 'watch watched' 'continue' 'continue' \
	'delete' 'set var counter = 40' 'p counter' 'continue'
keep break_step

# 2. a target-side condition and an agent-style dprintf (agent expressions)
start_server --remote-debug :0 "$BL" 8 || bail "no server"
remote_gdb "$BL" 'set dprintf-style agent' 'break bump if step == 3' \
	'dprintf breakloop.c:18,"step=%d counter=%d\n",step,counter' 'continue' 'p step' \
	'tbreak bump if counter > 10 && step % 2 == 0' 'continue' 'info breakpoints' 'continue'
keep conditions

# 3. threads
start_server --remote-debug :0 "$INFDIR/threads" || bail "no server"
remote_gdb "$INFDIR/threads" 'break all_named' 'continue' 'info threads' 'thread 2' 'bt' \
	'thread apply all bt 1' 'p squares' 'continue'
keep threads

# 4. signals and syscalls
start_server --remote-debug :0 "$INFDIR/signals" || bail "no server"
remote_gdb "$INFDIR/signals" 'handle SIGUSR1 stop print pass' 'catch syscall write' \
	'continue' 'continue' 'info signals SIGUSR1' 'delete' 'continue'
keep signals

# 5. extended-remote: run, host files, osdata, monitor, kill
start_server --remote-debug --multi :0 || bail "no server"
run_gdb "$BL" -ex "target extended-remote $TARGET" -ex "set remote exec-file $BL" \
	-ex 'break main' -ex 'run' -ex 'info os processes' -ex 'monitor help' \
	-ex "remote get $BL $WORK/copy" -ex 'info sharedlibrary' -ex 'kill' -ex 'monitor exit'
keep extended

# 6. a pty of --mount: join a program blocked in read(), look around, detach
if [[ -c /dev/fuse ]]; then
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	"$SERVER" --remote-debug --mount "$MNT" </dev/null >"$WORK/mount.out" 2>"$WORK/mount.err" &
	track $!
	wait_until grep -q '^Mounted on' "$WORK/mount.err"
	mkfifo "$WORK/in"
	sleep infinity >"$WORK/in" &
	track $!
	"$INFDIR/demo_reader" <"$WORK/in" >/dev/null &
	pid=$!
	track "$pid"
	sleep 0.3
	run_gdb "$INFDIR/demo_reader" -ex "target remote $MNT/$pid/gdb" -ex 'info threads' \
		-ex 'bt' -ex 'info registers' -ex 'x/16xb $sp' -ex 'p lines_seen' \
		-ex 'break say' -ex 'info breakpoints' -ex 'delete' -ex 'detach'
	cp "$WORK/mount.err" "$OUT/fuse.log"
	echo "$pid" >"$OUT/fuse.pid"
	kill "$pid"
	umount -l "$MNT" 2>/dev/null || fusermount3 -u -z "$MNT"
fi

# 7. ustrace joins a process a gdb holds through utraced: its traffic, both ways
use_rundir
"$INFDIR/syscall_loop" 1000000 20000 >/dev/null 2>&1 &
pid=$!
track "$pid"
sleep 0.2
start_server --remote-debug --attach :0 "$pid" || bail "no server"
wait_until test -S "$(rendezvous_sock "$pid")"
remote_gdb_bg "$WORK/gdb7.out" "$INFDIR/syscall_loop" continue
sleep 0.5
for opts in "-f" "-tt -T -e trace=write,nanosleep" "-c" "-x -s 64 -y -e signal=none"; do
	timeout -s INT 1.5 strace -f -qq -s 65536 -xx -e trace=read,write,recvfrom,sendto \
		-o "$WORK/ust.$$" "$TOP/build/ustrace" $opts -p "$pid" >/dev/null 2>&1
	cat "$WORK/ust.$$" >>"$OUT/ustrace.strace"
done
kill "$pid"
echo "recorded in $OUT"
done_testing
