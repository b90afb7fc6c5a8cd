#!/usr/bin/env bash
# bench/run.sh: utraced against gdbserver, side by side, same gdb commands.
#
#   bench/run.sh [CASE...]             time the cases (default: all), print a table
#   bench/run.sh --packets [CASE...]   count the packets gdb sends to each server
#   bench/run.sh --perf CASE [SERVER]  perf record the server (utraced|gdbserver)
#   bench/run.sh --strace CASE [SERVER] strace -c the server's own system calls
#   bench/run.sh --sweep               case c at several memory-read packet sizes
#
# Cases (docs/performance.md says what each measures):
#   start  connect, run to a breakpoint in main, kill: the fixed cost in all
#   a      BENCH_HITS (5000) breakpoint hits: break + ignore N-1 + continue
#   b      BENCH_STEPS (5000) single steps: stepi N
#   c      dump binary memory of BENCH_MEM_MIB (64) MiB
#   d0     BENCH_THREADS (500) threads started, stop once all exist, kill
#   d      as d0, then `info threads` BENCH_INFO_REPS (5) times
#   e      one `next` over a source line that is a whole BENCH_LOOP (1000)
#          iteration loop: single steps at gdb, or range stepping (vCont;r)
#          in the server if it has it
#   f      BENCH_HITS hits of `break hit if i == N-1`: a stop and a condition
#          check in gdb per hit, or one stop if the server evaluates the
#          condition itself (ConditionalBreakpoints+)
#   g      `catch syscall write` on a program making BENCH_SYSCALLS (55000)
#          system calls, one in ten a write: gdb continues through every
#          catch (a `commands` block: silent, count, continue)
#   h      utraced only: two clients on one process.  gdb runs a breakpoint
#          loop (as case a, BENCH_SYSCALLS/10 hits on the same program as
#          g) alone ("alone"), then with a raw RSP client that joined
#          through the rendezvous socket and catches every write
#          ("catcher": QCatchSyscalls:1;1, then c until the exit); the
#          table compares the two.  BENCH_H_CATCH (hex, default 1) is
#          what the catcher catches: e.g. 3e7, no syscall, measures the
#          syscall tracing alone, without the catcher's stops
#   x1, x8, x64  XHITS (5000) hits in all of a breakpoint whose condition
#          is never true (`break hit if i == -1`, evaluated by the server:
#          condition-evaluation target), in a program of 1, 8 and 64
#          threads each calling hit() XHITS/N times; utraced, gdbserver
#          and native gdb (no server: its own table, the cost per hit).
#          utraced steps over such a hit out of line; gdbserver stops
#          every thread for it. Each xN also runs as xN.base (one call a
#          thread): the cost per hit is the difference of the two parts
#          divided by the hits (x_calls)
#   fuse-a utraced only: case a through `utraced --mount DIR`'s link
#          DIR/<pid>/gdb ("fuse") against the same through a unix socket
#          ("unix") of the same daemon (`utraced --mount DIR --multi
#          unix:PATH`; gdb: target extended-remote PATH, attach PID). The
#          runner starts the program (it waits for gdb to set `go`), gdb
#          attaches; the table gives the ratio fuse / unix
#   fuse-b utraced only: case b (stepi BENCH_STEPS) the same two ways
#   (fuse-a and fuse-b are in the default set only where FUSE works: a
#   utraced linked with libfuse3 and /dev/fuse; they mount on
#   build/bench/out/mnt, which needs root or fusermount3)
#
# Transport: TCP on loopback for both servers, except the fuse-* cases (SERVER --once 127.0.0.1:PORT
# PROG; gdb: target remote 127.0.0.1:PORT). Not stdio: gdb's pipe transport
# polls the pipe's stderr on every byte it reads, which costs far more than
# either server does and hides the difference (see docs/performance.md).
#
# Each repetition runs every case on both servers, the order of the two
# alternating between repetitions; the table shows medians. "session" is
# the gdb session's wall time (gdb start to server exit; the server has
# already started PROG and is listening); "part" is only the commands the
# case is about, timed by a python clock inside gdb (if gdb has python);
# "cpu" is user+sys of the server (including PROG, its child) and of gdb,
# from /usr/bin/time if present.
#
# Environment: BENCH_REPS (3), BENCH_HITS, BENCH_XHITS, BENCH_STEPS, BENCH_MEM_MIB,
# BENCH_THREADS, BENCH_INFO_REPS, BENCH_LOOP, BENCH_SYSCALLS, BENCH_SWEEP
# (--sweep sizes), UTRACED (build/utraced), UTRACED_ARGS (more options for
# utraced: `--agent=off` makes x1/x8/x64 measure the out-of-line step-over
# instead of the in-process agent), GDBSERVER (gdbserver in PATH),
# GDB (gdb), RSPCLIENT (build/tests/rspclient, case h).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build/bench
UTRACED=${UTRACED:-$ROOT/build/utraced}
read -r -a UTRACED_ARGS <<<"${UTRACED_ARGS:-}"
GDBSERVER=${GDBSERVER:-$(command -v gdbserver || echo /usr/bin/gdbserver)}
GDB=${GDB:-gdb}
REPS=${BENCH_REPS:-3}
HITS=${BENCH_HITS:-5000}
STEPS=${BENCH_STEPS:-5000}
MEM_MIB=${BENCH_MEM_MIB:-64}
THREADS=${BENCH_THREADS:-500}
INFO_REPS=${BENCH_INFO_REPS:-5}
LOOP=${BENCH_LOOP:-1000}
SYSCALLS=${BENCH_SYSCALLS:-55000}
H_CATCH=${BENCH_H_CATCH:-1}
XHITS=${BENCH_XHITS:-5000}
RSPCLIENT=${RSPCLIENT:-$ROOT/build/tests/rspclient}
ALL_CASES="start a b c d0 d e f g h x1 x8 x64"
FUSE_CASES="fuse-a fuse-b"
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || TIME_BIN=

die() { echo "bench: $*" >&2; exit 1; }

# ---------------------------------------------------------------- setup

build_progs() {
	mkdir -p "$B/out"
	for src in "$ROOT"/bench/*.c; do
		local exe=$B/$(basename "$src" .c)
		if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ]; then
			gcc -std=gnu11 -g -O0 -pthread -Wall -Wextra -o "$exe" "$src" || die "cannot build $src"
		fi
	done
	# case h's second client
	if [ ! -x "$RSPCLIENT" ]; then
		RSPCLIENT=$B/rspclient
		if [ ! -x "$RSPCLIENT" ] || [ "$ROOT/tests/lib/rspclient.c" -nt "$RSPCLIENT" ]; then
			gcc -std=gnu11 -O2 -D_GNU_SOURCE -o "$RSPCLIENT" "$ROOT/tests/lib/rspclient.c" ||
				die "cannot build rspclient"
		fi
	fi
}

check_tools() {
	[ -x "$UTRACED" ] || die "no $UTRACED (run make)"
	[ -x "$GDBSERVER" ] || die "no gdbserver ($GDBSERVER); apt-get install gdbserver"
	command -v "$GDB" >/dev/null || die "no gdb; apt-get install gdb"
	command -v ss >/dev/null || die "no ss; apt-get install iproute2"
}

server_path() {
	case $1 in
	utraced) echo "$UTRACED" ;;
	gdbserver) echo "$GDBSERVER" ;;
	alone | catcher) echo "$UTRACED" ;; # case h: utraced without / with a second client
	fuse | unix) echo "$UTRACED" ;;     # fuse-*: one utraced --mount, two ways in
	native) echo "" ;;		    # x*: gdb alone
	*) die "server must be utraced or gdbserver (case h: alone or catcher; fuse-*: fuse or unix), not $1" ;;
	esac
}

# ---------------------------------------------------------------- cases

# case_prog CASE: the program and its arguments
case_prog() {
	case $1 in
	start | a | f) echo "$B/bp_loop $HITS" ;;
	b) echo "$B/step_loop" ;;
	fuse-a) echo "$B/bp_loop $HITS wait" ;;
	fuse-b) echo "$B/step_loop wait" ;;
	c) echo "$B/mem_dump $MEM_MIB" ;;
	d0 | d) echo "$B/many_threads $THREADS" ;;
	e) echo "$B/next_loop $LOOP" ;;
	g | h) echo "$B/sys_loop $SYSCALLS" ;;
	x*) echo "$B/cond_threads $(x_threads "$1") $(x_calls "$1")" ;;
	*) die "unknown case $1 (cases: $ALL_CASES $FUSE_CASES)" ;;
	esac
}

# case_script CASE OUTFILE BEGIN END SERVER: the gdb script. BEGIN and END
# enclose the part of the session the case is about: `set debug remote 1/0`
# in --packets mode, a python clock in time mode (the "part" columns).
case_script() {
	local c=$1 out=$2 b=$3 e=$4 s=$5 i
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		case $c in
		start)
			echo "$b"
			echo "break main"
			echo "continue"
			echo "$e"
			echo "kill"
			;;
		a)
			echo "break hit"
			echo "$b"
			echo "ignore 1 $((HITS - 1))"
			echo "continue"
			echo "print counter"
			echo "$e"
			echo "continue"
			;;
		b)
			echo "break start"
			echo "continue"
			echo "$b"
			echo "stepi $STEPS"
			echo "$e"
			echo 'printf "final-pc=%#lx\n", $pc'
			echo "kill"
			;;
		c)
			echo "break ready"
			echo "continue"
			echo "$b"
			echo "dump binary memory $B/out/dump.$s buf buf+buf_len"
			echo "$e"
			echo "kill"
			;;
		d0)
			echo "break ready"
			echo "$b"
			echo "continue"
			echo "$e"
			echo "kill"
			;;
		d)
			echo "break ready"
			echo "continue"
			echo "$b"
			for ((i = 0; i < INFO_REPS; i++)); do echo "info threads"; done
			echo "$e"
			echo "kill"
			;;
		f)
			echo "break hit if i == $((HITS - 1))"
			echo "$b"
			echo "continue"
			echo "print counter"
			echo "$e"
			echo "continue"
			;;
		e)
			echo "break next_loop.c:$(marker_line next_loop.c loop)"
			echo "continue"
			echo "$b"
			echo "next"
			echo "$e"
			echo "kill"
			;;
		x*)
			echo "set breakpoint condition-evaluation target"
			echo "break hit if i == -1"
			echo "$b"
			if [ "$s" = native ]; then echo run; else echo continue; fi
			echo "$e"
			;;
		g)
			echo "catch syscall write"
			echo "commands"
			echo "silent"
			echo "set \$hits = \$hits + 1"
			echo "continue"
			echo "end"
			echo "set \$hits = 0"
			echo "$b"
			echo "continue"
			echo "$e"
			echo "print \$hits"
			;;
		fuse-a)
			# gdb attached to the waiting program; then as case a
			echo "set var go = 1"
			echo "break hit"
			echo "$b"
			echo "ignore 1 $((HITS - 1))"
			echo "continue"
			echo "print counter"
			echo "$e"
			echo "continue"
			;;
		fuse-b)
			echo "set var go = 1"
			echo "break start"
			echo "continue"
			echo "$b"
			echo "stepi $STEPS"
			echo "$e"
			# attached, so not at a fixed address: where, from start()
			echo 'printf "final-pc=%#lx\n", $pc - (long)&start'
			echo "detach"
			;;
		h)
			# first hit; then (case h, catcher) the runner lets the
			# second client join before the measured loop
			echo "break hit"
			echo "continue"
			echo "shell touch $B/out/h.ready"
			echo "shell i=0; while [ ! -e $B/out/h.go ] && [ \$i -lt 6000 ]; do sleep 0.01; i=\$((i + 1)); done"
			echo "ignore 1 $((SYSCALLS / 10 - 2))"
			echo "$b"
			echo "continue"
			echo "print counter"
			echo "$e"
			echo "delete"
			echo "continue"
			;;
		esac
	} >"$out"
}

# marker_line FILE NAME: the line of bench/FILE marked /* LINE:NAME */
marker_line() { grep -n "LINE:$2 \*/" "$ROOT/bench/$1" | cut -d: -f1; }

# case_check CASE SERVER GDB_OUT SERVER_OUT: is the run what it claims?
case_check() {
	local c=$1 s=$2 gout=$3 sout=$4 n
	case $c in
	start) grep -q "Breakpoint 1, main" "$gout" ;;
	a | f | fuse-a) grep -qxF "\$1 = $((HITS - 1))" "$gout" && grep -q "hits=$HITS" "$sout" ;;
	b | fuse-b)
		grep -o 'final-pc=0x[0-9a-f]*' "$gout" >"$B/out/b.pc.$s"
		[ -s "$B/out/b.pc.$s" ]
		;;
	c)
		"$B/mem_dump" --check "$B/out/dump.$s" "$MEM_MIB"
		;;
	d0 | d)
		grep -q "Breakpoint 1, ready (n=$THREADS)" "$gout" || return 1
		[ "$c" = d0 ] && return 0
		n=$(grep -cE '^[* ] +[0-9]+ +Thread ' "$gout" || true)
		[ "$n" -eq $((INFO_REPS * (THREADS + 1))) ]
		;;
	e) grep -q "LINE:after" "$gout" && ! grep -q "acc=" "$sout" ;;
	x*)
		n=$(x_threads "$c")
		grep -q "calls=$((n * $(x_calls "$c")))" "$sout" && ! grep -q "hit Breakpoint" "$gout"
		;;
	g)
		# every write of the loop and the final printf, entry and return
		grep -qxF "\$1 = $((2 * (SYSCALLS / 10 + 1)))" "$gout" &&
			grep -q "syscalls=$SYSCALLS writes=$((SYSCALLS / 10)) " "$sout"
		;;
	h)
		grep -qxF "\$1 = $((SYSCALLS / 10 - 1))" "$gout" &&
			grep -q "syscalls=$SYSCALLS writes=$((SYSCALLS / 10)) " "$sout" || return 1
		[ "$s" = catcher ] || return 0
		[ "$(tail -n 1 "$B/out/h.catcher.out")" = W00 ] || return 1
		# the catcher joined at the first hit, before any write: it saw
		# them all (and the final printf), then the exit
		n=$(grep -c "^T05.*syscall_entry:$H_CATCH;" "$B/out/h.catcher.out" || true)
		case $H_CATCH in
		1) [ "$n" -eq $((SYSCALLS / 10 + 1)) ] ;;
		*) [ "$(grep -c . "$B/out/h.catcher.out")" -eq $((2 * n + 2)) ] ;; # OK, stops, W00
		esac
		;;
	esac
}

# h_second_client SERVER_OUT VARIANT: case h, in the background while gdb
# runs: waits for gdb's first hit, then (VARIANT catcher) starts the
# syscall catcher on the rendezvous socket and waits for its catch list to
# be set; then lets gdb go on.
h_second_client() {
	local sout=$1 v=$2 pid i
	for ((i = 0; i < 6000; i++)); do
		[ -e "$B/out/h.ready" ] && break
		sleep 0.01
	done
	if [ "$v" = catcher ]; then
		pid=$(sed -n 's/^Process .* created; pid = \([0-9]*\)$/\1/p' "$sout" | head -1)
		"$RSPCLIENT" -t 600 "unix:$UTRACED_RUNDIR/$pid.sock" "QCatchSyscalls:1;$H_CATCH" --loop c \
			>"$B/out/h.catcher.out" 2>&1 &
		for ((i = 0; i < 6000; i++)); do
			grep -qx OK "$B/out/h.catcher.out" 2>/dev/null && break
			sleep 0.01
		done
	fi
	touch "$B/out/h.go"
	[ "$v" = catcher ] && wait
	return 0
}

# ---------------------------------------------------------------- running

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		ss -ltnH "sport = :$p" | grep -q . || { echo $p; return; }
	done
}

# wait_listen PORT PID: until PID listens on PORT (or dies)
wait_listen() {
	local i
	for ((i = 0; i < 1000; i++)); do
		ss -ltnH "sport = :$1" | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# wait_gone PID: wait for our server to exit, killing it after 30 s
wait_gone() {
	local i
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.01
	done
	kill -0 "$1" 2>/dev/null && { echo "bench: server $1 hung; killing it" >&2; kill -9 "$1"; }
	wait "$1" 2>/dev/null || true
}

# run_one CASE SERVER MODE: one gdb session. MODE: time|packets|perf|strace.
# Sets RUN_SECS (session), RUN_PART, RUN_SCPU (server + PROG) and RUN_GCPU
# (gdb); the logs stay in $B/out/CASE.SERVER.*. With PKT_SIZE set, gdb is
# told `set remote memory-read-packet-size PKT_SIZE` first (--sweep).
run_one() {
	local c=$1 s=$2 mode=$3 srv port spid hpid t0 t1 begin="" end=""
	local pfx=$B/out/$c.$s sout=$B/out/$c.$s.server
	local -a wrap=() gwrap=() prog sargs=()
	srv=$(server_path "$s")
	read -r -a prog <<<"$(case_prog "$c")"
	case $mode in
	time)
		if [ -n "$TIME_BIN" ]; then
			wrap=("$TIME_BIN" -f "%U %S" -o "$pfx.cpu")
			gwrap=("$TIME_BIN" -f "%U %S" -o "$pfx.gcpu")
		fi
		if [ "$HAVE_PY" = 1 ]; then
			begin="python import time; bench_t0 = time.monotonic()"
			end='python print("bench-part %.4f" % (time.monotonic() - bench_t0))'
		fi
		;;
	packets) begin="set debug remote 1" end="set debug remote 0" ;;
	perf) wrap=(perf record --call-graph dwarf,16384 -o "$pfx.perf.data" --) ;;
	strace) wrap=(strace -c -o "$pfx.strace") ;;
	esac
	if [ -n "${PKT_SIZE:-}" ] && [ "$PKT_SIZE" != default ]; then
		begin="set remote memory-read-packet-size $PKT_SIZE
$begin"
	fi
	case_script "$c" "$pfx.gdb" "$begin" "$end" "$s"
	rm -f "$B/out/dump.$s" "$pfx.cpu" "$pfx.gcpu" "$B/out/h.ready" "$B/out/h.go" "$B/out/h.catcher.out"
	if is_fuse_case "$c"; then
		fuse_session # sets t0, t1; the program's output in $pfx.prog
		sout=$pfx.prog
	elif [ "$s" = native ]; then
		t0=$(date +%s.%N)
		timeout 600 "${gwrap[@]}" "$GDB" -batch -nx -x "$pfx.gdb" --args "${prog[@]}" \
			>"$pfx.gdbout" 2>&1 </dev/null || true
		t1=$(date +%s.%N)
		sout=$pfx.gdbout
	else
		port=$(free_port)
		[ "$srv" = "$UTRACED" ] && sargs=("${UTRACED_ARGS[@]}")
		"${wrap[@]}" "$srv" "${sargs[@]}" --once "127.0.0.1:$port" "${prog[@]}" >"$pfx.server" 2>&1 </dev/null &
		spid=$!
		wait_listen "$port" "$spid" || die "$s did not listen on $port (see $pfx.server)"
		[ "$c" = h ] && { h_second_client "$pfx.server" "$s" & hpid=$!; }
		t0=$(date +%s.%N)
		timeout 600 "${gwrap[@]}" "$GDB" -batch -nx -ex "target remote 127.0.0.1:$port" \
			-x "$pfx.gdb" >"$pfx.gdbout" 2>&1 </dev/null || true
		wait_gone "$spid"
		t1=$(date +%s.%N)
		[ "$c" = h ] && wait "$hpid"
	fi
	RUN_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	RUN_SCPU=$(cpu_of "$pfx.cpu")
	RUN_GCPU=$(cpu_of "$pfx.gcpu")
	RUN_PART=$(awk '/^bench-part / { p = $2 } END { print p == "" ? "-" : p }' "$pfx.gdbout")
	# (--packets: gdb's debug lines cut into its output, so only warn)
	if ! case_check "$c" "$s" "$pfx.gdbout" "$sout"; then
		[ "$mode" = packets ] && echo "bench: warning: check of case $c on $s failed" >&2 && return
		die "case $c on $s did not do what it should; see $pfx.gdbout and $sout"
	fi
}

is_fuse_case() { [ "${1#fuse-}" != "$1" ]; }

# wait_file FILE REGEX PID: until a line of FILE matches (or PID dies, or 30 s)
wait_file() {
	local i
	for ((i = 0; i < 3000; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# fuse_session: run_one's part for the fuse-* cases (it sees run_one's
# locals). One daemon serves both ways in: `--mount DIR --multi unix:SOCK`.
# The runner starts the program, which waits for gdb; gdb attaches to it
# by opening DIR/<pid>/gdb (fuse), or with extended-remote and `attach`
# (unix). session = gdb's run; the daemon is stopped with SIGTERM after.
fuse_session() {
	local mnt=$B/out/mnt sock=$B/out/fuse.sock ppid dpid
	local -a target
	rm -f "$sock" "$pfx.prog"
	"${wrap[@]}" "$srv" --mount "$mnt" --multi "unix:$sock" >"$pfx.server" 2>&1 </dev/null &
	spid=$!
	wait_file "$pfx.server" '^Listening on unix socket' "$spid" ||
		die "$srv --mount did not start (see $pfx.server)"
	"${prog[@]}" >"$pfx.prog" 2>&1 </dev/null &
	ppid=$!
	wait_file "$pfx.prog" '^waiting' "$ppid" || die "${prog[0]} did not start"
	case $s in
	fuse) target=(-ex "target remote $mnt/$ppid/gdb") ;;
	unix) target=(-ex "target extended-remote $sock" -ex "attach $ppid") ;;
	esac
	t0=$(date +%s.%N)
	timeout 600 "${gwrap[@]}" "$GDB" -batch -nx "${prog[0]}" "${target[@]}" \
		-x "$pfx.gdb" >"$pfx.gdbout" 2>&1 </dev/null || true
	t1=$(date +%s.%N)
	wait_gone "$ppid" # it runs to its end, detached
	# the daemon itself, not a perf or strace around it
	dpid=$(cat "/proc/$spid/task/$spid/children" 2>/dev/null | awk '{ print $1 }')
	kill -TERM "${dpid:-$spid}" 2>/dev/null || true
	wait_gone "$spid"
}

cpu_of() { # a /usr/bin/time -f "%U %S" file -> user+sys, or "-"
	local v=""
	[ -s "$1" ] && v=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { v = $1 + $2 } END { if (v != "") printf "%.2f", v }' "$1")
	echo "${v:--}"
}

median() { # numbers on stdin -> median ("-" if none)
	awk '$1 != "-"' | sort -g | awk '{ v[n++] = $1 }
		END { if (!n) print "-"; else if (n % 2) printf "%.3f\n", v[int(n / 2)];
		      else printf "%.3f\n", (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }

header() {
	echo "# utraced vs gdbserver: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)," \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# $("$GDB" --version | head -1); $("$GDBSERVER" --version | head -1)"
	echo "# transport: TCP loopback; reps: $REPS (median); hits=$HITS steps=$STEPS" \
		"mem=${MEM_MIB}MiB threads=$THREADS info-threads=$INFO_REPS loop=$LOOP syscalls=$SYSCALLS h-catch=$H_CATCH"
}

# case_servers CASE: the two "servers" a case compares (case h: utraced
# alone and utraced with a second client).
case_servers() {
	case $1 in
	h) echo "alone catcher" ;;
	fuse-*) echo "fuse unix" ;;
	x*) echo "utraced gdbserver native" ;;
	*) echo "utraced gdbserver" ;;
	esac
}

# reps CASES...: run every case on both servers REPS times, alternating
# which server goes first; appends "rep case server session part scpu gcpu"
# lines to $RAW.
reps() {
	local c s r order s1 s2 s3
	for ((r = 1; r <= REPS; r++)); do
		for c in "$@"; do
			read -r s1 s2 s3 <<<"$(case_servers "$c")"
			if ((r % 2)); then order="$s1 $s2 $s3"; else order="$s3 $s2 $s1"; fi
			for s in $order; do
				run_one "$c" "$s" time
				echo "$r $c $s $RUN_SECS $RUN_PART $RUN_SCPU $RUN_GCPU" >>"$RAW"
				printf '  rep %d %-5s %-9s session %6ss  part %6ss  cpu server %ss gdb %ss\n' \
					"$r" "$c" "$s" "$RUN_SECS" "$RUN_PART" "$RUN_SCPU" "$RUN_GCPU" >&2
			done
		done
	done
}

col() { # CASE SERVER FIELD -> median of that field in $RAW
	awk -v c="$1" -v s="$2" -v k="$3" '$1 !~ /^#/ && $2 == c && $3 == s { print $k }' "$RAW" | median
}

do_time() {
	local c su sg pu pg cu cg gu gg runs=()
	RAW=$B/out/raw.txt
	header | tee "$RAW"
	for c; do # each xN with its base case (x_calls)
		runs+=("$c")
		[ "${c#x}" != "$c" ] && [ "${c%.base}" = "$c" ] && runs+=("$c.base")
	done
	reps "${runs[@]}"
	if [ -s "$B/out/b.pc.utraced" ] && [ -s "$B/out/b.pc.gdbserver" ]; then
		cmp -s "$B/out/b.pc.utraced" "$B/out/b.pc.gdbserver" ||
			echo "WARNING: stepi ended at different pcs: $(cat "$B/out/b.pc.utraced") vs $(cat "$B/out/b.pc.gdbserver")"
	fi
	if [ -s "$B/out/b.pc.fuse" ] && [ -s "$B/out/b.pc.unix" ]; then
		cmp -s "$B/out/b.pc.fuse" "$B/out/b.pc.unix" ||
			echo "WARNING: fuse-b: stepi ended at different offsets: $(cat "$B/out/b.pc.fuse") vs $(cat "$B/out/b.pc.unix")"
	fi
	echo
	echo "Medians of $REPS; ratio = utraced / gdbserver (<= 1.00: utraced at least as fast)."
	echo "session: the whole gdb session; part: only the commands the case is about;"
	echo "cpu: user+sys of the server (with PROG, its child) and of gdb, whole session."
	if [ -n "$(main_cases "$@")" ]; then
		printf '%-36s|%-24s|%-24s|%-14s|%s\n' "" "  session (s)" "  part (s)" " server cpu" " gdb cpu"
		printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " case" utraced gdbsrv ratio \
			utraced gdbsrv ratio u g u g
	fi
	for c in "$@"; do
		[ "$c" = h ] || [ "${c#x}" != "$c" ] || is_fuse_case "$c" && continue # their own tables
		su=$(col "$c" utraced 4) sg=$(col "$c" gdbserver 4)
		pu=$(col "$c" utraced 5) pg=$(col "$c" gdbserver 5)
		cu=$(col "$c" utraced 6) cg=$(col "$c" gdbserver 6)
		gu=$(col "$c" utraced 7) gg=$(col "$c" gdbserver 7)
		printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " $(case_title "$c")" \
			"$su" "$sg" "$(ratio "$su" "$sg")" "$pu" "$pg" "$(ratio "$pu" "$pg")" \
			"$cu" "$cg" "$gu" "$gg"
	done
	case " $* " in *" h "*) h_table ;; esac
	case " $* " in *" x"*) x_table "$@" ;; esac
	case " $* " in *" fuse-"*) fuse_table "$@" ;; esac
	echo "(raw samples: $RAW; columns: rep case server session part server-cpu gdb-cpu)"
}

main_cases() { # CASES... -> those of the utraced / gdbserver table
	local c
	for c; do [ "$c" = h ] || [ "${c#x}" != "$c" ] || is_fuse_case "$c" || echo "$c"; done
}

fuse_table() { # the fuse-* cases: DIR/<pid>/gdb against the unix socket
	local c sf su pf pu cf cu gf gu
	echo
	echo "Cases fuse-*, utraced only: gdb attached through DIR/<pid>/gdb (--mount) and through"
	echo "a unix socket of the same daemon; ratio = fuse / unix (the cost of the pty behind the link)."
	printf '%-36s|%-24s|%-24s|%-14s|%s\n' "" "  session (s)" "  part (s)" " server cpu" " gdb cpu"
	printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " case" fuse unix ratio \
		fuse unix ratio f u f u
	for c; do
		is_fuse_case "$c" || continue
		sf=$(col "$c" fuse 4) su=$(col "$c" unix 4)
		pf=$(col "$c" fuse 5) pu=$(col "$c" unix 5)
		cf=$(col "$c" fuse 6) cu=$(col "$c" unix 6)
		gf=$(col "$c" fuse 7) gu=$(col "$c" unix 7)
		printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " $(case_title "$c")" \
			"$sf" "$su" "$(ratio "$sf" "$su")" "$pf" "$pu" "$(ratio "$pf" "$pu")" \
			"$cf" "$cu" "$gf" "$gu"
	done
}

# x_threads CASE, x_calls CASE: case xN runs N threads calling hit()
# XHITS/N times each; its base case xN.base, once each. The difference of
# the two parts is the cost of the hits alone: the part of both also holds
# what does not depend on the hits (gdb reading libc's symbols at the
# shared-library stop, the threads' start and exit), 0.1-0.5 s, the same
# for both servers, which would otherwise pull every ratio towards 1.
x_threads() { local t=${1#x}; echo "${t%.base}"; }
x_calls() {
	local n
	n=$(x_threads "$1")
	if [ "${1%.base}" != "$1" ]; then echo 1; else echo $((XHITS / n)); fi
}

# per_hit PART BASE CASE: us per hit, (PART - BASE) / hits
per_hit() {
	local n
	n=$(x_threads "$3")
	awk -v t="$1" -v b="$2" -v h="$(((XHITS / n - 1) * n))" 'BEGIN {
		if (t == "-" || b == "-") print "-"; else printf "%.1f", (t - b) * 1e6 / h }'
}

x_table() { # cases x*: per-hit cost of a false condition, three ways
	local c u g n one=""
	echo
	echo "Cases x*: $XHITS hits of a breakpoint whose condition is false, evaluated by the server;"
	echo "per hit (us): (part of xN - part of xN.base, one call a thread) / hits, median parts;"
	echo "utraced / gdbserver / native gdb; ratio = utraced / gdbserver;"
	echo "scaling = utraced's cost per hit against its cost with 1 thread."
	printf '%-36s|%9s %9s %9s |%6s |%8s\n' " case" utraced gdbsrv native ratio scaling
	for c; do
		[ "${c#x}" != "$c" ] && [ "${c%.base}" = "$c" ] || continue
		u=$(per_hit "$(col "$c" utraced 5)" "$(col "$c.base" utraced 5)" "$c")
		g=$(per_hit "$(col "$c" gdbserver 5)" "$(col "$c.base" gdbserver 5)" "$c")
		n=$(per_hit "$(col "$c" native 5)" "$(col "$c.base" native 5)" "$c")
		[ "$c" = x1 ] && one=$u
		printf '%-36s|%9s %9s %9s |%6s |%8s\n' " $(case_title "$c")" "$u" "$g" "$n" \
			"$(ratio "$u" "$g")" "$(ratio "$u" "${one:--}")"
	done
}

h_table() { # case h: utraced alone vs with a second client
	local su sc pu pc cu cc gu gc
	su=$(col h alone 4) sc=$(col h catcher 4)
	pu=$(col h alone 5) pc=$(col h catcher 5)
	cu=$(col h alone 6) cc=$(col h catcher 6)
	gu=$(col h alone 7) gc=$(col h catcher 7)
	echo
	echo "Case h, utraced only: gdb's loop of $((SYSCALLS / 10 - 1)) breakpoint hits, alone and with a"
	echo "second client (raw RSP, rendezvous socket) catching syscall $H_CATCH (hex; 1: every write)"
	echo "of the same process; ratio = with catcher / alone (the cost of sharing the process)."
	printf '%-36s|%-24s|%-24s|%-14s|%s\n' "" "  session (s)" "  part (s)" " server cpu" " gdb cpu"
	printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " case" alone catcher ratio \
		alone catcher ratio a c a c
	printf '%-36s|%7s %7s %7s |%7s %7s %7s |%6s %6s |%6s %6s\n' " $(case_title h)" \
		"$su" "$sc" "$(ratio "$sc" "$su")" "$pu" "$pc" "$(ratio "$pc" "$pu")" \
		"$cu" "$cc" "$gu" "$gc"
}

# --sweep: case c with gdb's memory-read packet size forced down to each of
# BENCH_SWEEP (bytes per 'm' reply; "default" = what the server advertises).
do_sweep() {
	local sz s n pu per sizes=${BENCH_SWEEP:-"1024 2048 4096 default"}
	local bytes=$((MEM_MIB << 20))
	RAW=$B/out/sweep.txt
	header | tee "$RAW"
	rm -f "$B/out/sweep.summary"
	for sz in $sizes; do
		PKT_SIZE=$sz
		echo "# size $sz" >>"$RAW"
		reps c
		for s in utraced gdbserver; do
			pu=$(awk -v want="$sz" -v s="$s" '/^# size / { cur = $3 } /^#/ { next }
				cur == want && $3 == s { print $5 }' "$RAW" | median)
			# bytes per 'm' reply: gdb asks for (PacketSize / 2), utraced
			# answers at most (0x4000 - 16) / 2 = 8184 of them
			case $sz:$s in
			default:utraced) per=8184 ;;
			default:gdbserver) per=$((0x47ff / 2)) ;;
			*) per=$sz ;;
			esac
			n=$(((bytes + per - 1) / per))
			printf '%s\n' "$sz $s $per $n $pu" >>"$B/out/sweep.summary"
		done
	done
	unset PKT_SIZE
	echo
	echo "case c ($MEM_MIB MiB) by memory-read packet size; part = the dump, median of $REPS"
	printf '%-9s %-10s %10s %9s %9s\n' size server bytes/pkt packets "part s"
	awk '{ printf "%-9s %-10s %10d %9d %9s\n", $1, $2, $3, $4, $5 }' "$B/out/sweep.summary"
	echo "least-squares fit, part = fixed + per_packet * packets:"
	awk '$5 != "-" {
			n[$2]++; x[$2] += $4; y[$2] += $5; xx[$2] += $4 * $4; xy[$2] += $4 * $5 }
		END { for (s in n) { d = n[s] * xx[s] - x[s] * x[s]; if (d == 0) continue
			b = (n[s] * xy[s] - x[s] * y[s]) / d; a = (y[s] - b * x[s]) / n[s]
			printf "  %-10s fixed %.3f s (%.1f ns/byte), per packet %.1f us\n", s, a,
				1e9 * a / '"$bytes"', 1e6 * b } }' "$B/out/sweep.summary"
	rm -f "$B/out/sweep.summary"
	echo "(raw: $RAW)"
}

case_title() {
	case $1 in
	start) echo "start: connect, run to main" ;;
	a) echo "a: $HITS breakpoint hits" ;;
	b) echo "b: stepi $STEPS" ;;
	c) echo "c: dump $MEM_MIB MiB" ;;
	d0) echo "d0: start $THREADS threads" ;;
	d) echo "d: ${INFO_REPS}x info threads, $THREADS thr" ;;
	e) echo "e: next over a $LOOP-iteration line" ;;
	f) echo "f: $HITS hits of a break ... if" ;;
	g) echo "g: catch syscall write, $SYSCALLS calls" ;;
	h) echo "h: $((SYSCALLS / 10 - 1)) hits, + syscall catcher" ;;
	x*.base) echo "${1}: $(x_threads "$1") call(s), 1 a thread" ;;
	x*) echo "${1}: $XHITS false hits, ${1#x} thread(s)" ;;
	fuse-a) echo "fuse-a: $HITS breakpoint hits" ;;
	fuse-b) echo "fuse-b: stepi $STEPS" ;;
	esac
}

# Packet kinds: the name without its arguments (vCont;s and vCont;c apart).
packet_kinds() {
	grep -a -o 'Sending packet: \$[^#]*' "$1" | sed 's/^Sending packet: \$//' | sed -E '
		s/^(vCont;[a-zA-Z]).*/\1/; t
		s/^(vFile:[a-z]+).*/\1/; t
		s/^(qXfer:[a-z0-9-]+:[a-z]+).*/\1/; t
		s/^(H[gc]).*/\1/; t
		s/^([qQv][A-Z][A-Za-z]*).*/\1/; t
		s/^([a-zA-Z?]).*/\1/' | sort | uniq -c | sort -rn
}

do_packets() {
	local c s
	header
	echo "# packets gdb sends during the measured part of each case (set debug remote 1)"
	for c in "$@"; do
		for s in $(case_servers "$c"); do
			run_one "$c" "$s" packets
			local log=$B/out/$c.$s.gdbout
			echo
			echo "== $(case_title "$c") -- $s: $(grep -a -c 'Sending packet: ' "$log") packets" \
				"(log: $log)"
			packet_kinds "$log" | head -12 | awk '{ printf "   %7d %s\n", $1, $2 }'
		done
	done
}

do_profile() { # --perf|--strace CASE [SERVER]
	local tool=$1 c=${2:-} s=${3:-utraced} pfx
	[ -n "$c" ] || die "usage: bench/run.sh $tool CASE [utraced|gdbserver]"
	pfx=$B/out/$c.$s
	case $tool in
	--perf)
		command -v perf >/dev/null || die "no perf; apt-get install linux-perf"
		run_one "$c" "$s" perf
		echo "wall ${RUN_SECS}s; perf data: $pfx.perf.data"
		echo "-- where the samples are (process, object):"
		perf report -i "$pfx.perf.data" --stdio --no-children --sort comm,dso -g none \
			2>/dev/null | grep -E '^ +[0-9]' | head -12
		echo "-- top symbols of the server process:"
		perf report -i "$pfx.perf.data" --stdio --no-children --comm "$(basename "$(server_path "$s")")" \
			--sort dso,sym -g none 2>/dev/null | grep -E '^ +[0-9]' | head -25
		echo "-- callers of one symbol: perf report -i $pfx.perf.data --no-children -G --symbols SYM"
		;;
	--strace)
		command -v strace >/dev/null || die "no strace; apt-get install strace"
		run_one "$c" "$s" strace
		echo "wall ${RUN_SECS}s (under strace); $s's own system calls, not PROG's:"
		cat "$pfx.strace"
		;;
	esac
}

main() {
	check_tools
	build_progs
	# case h finds the process's rendezvous socket here
	export UTRACED_RUNDIR=$B/out/run
	mkdir -p "$UTRACED_RUNDIR"
	# the fuse-* cases join the default set where FUSE can work
	if [ -c /dev/fuse ] && ldd "$UTRACED" 2>/dev/null | grep -q libfuse3; then
		ALL_CASES="$ALL_CASES $FUSE_CASES"
	fi
	HAVE_PY=0
	"$GDB" -batch -nx -ex "python print(1)" >/dev/null 2>&1 && HAVE_PY=1
	case ${1:-} in
	--packets)
		shift
		[ $# -gt 0 ] || set -- $ALL_CASES
		do_packets "$@"
		;;
	--perf | --strace) do_profile "$@" ;;
	--sweep) do_sweep ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
	-*) die "unknown option $1 (see --help)" ;;
	*)
		[ $# -gt 0 ] || set -- $ALL_CASES
		for c in "$@"; do case_prog "$c" >/dev/null; done
		do_time "$@"
		;;
	esac
}

main "$@"
