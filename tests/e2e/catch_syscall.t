#!/bin/bash
# gdb's `catch syscall` through the server (QCatchSyscalls, stop replies
# T05syscall_entry:NR; / T05syscall_return:NR;), launch mode.
#
# syscall_loop calls tick(i), then getpid, getppid and write(1, "tick I\n")
# in each iteration, and nothing else makes a system call in its loop: the
# stops a catch list gives are known exactly.
#
#  1. catch syscall write: entry then return, with the syscall's name; at
#     the entry orig_rax/orig_eax is the number and rax/eax -ENOSYS and
#     nothing is written yet; at the return rax/eax is the byte count and
#     the line is out; deleting the catchpoint lets the program run to its
#     exit code;
#  2. catch syscall (no list) from main: getpid, then getppid, in order;
#  3. catch syscall getpid write: the two, never getppid;
#  4. a breakpoint and a syscall catchpoint together;
#  5. raw QCatchSyscalls: the exact stop replies, a list in hex, the
#     syscalls not in the list never reported, QCatchSyscalls:0, malformed
#     packets refused;
#  6. attach to demo_reader blocked in read(), catch syscall read: the
#     entry of the restarted read comes first, then its return (not two
#     "returns": entry and return are not told apart by counting);
#  7. stepi from a syscall-entry stop: the syscall completes;
#  8. ^C while blocked in a caught read(): its return (-ERESTARTSYS), the
#     SIGINT, then the restarted read's entry and return;
#  9. threads: the workers' prctl(PR_SET_NAME), entry then return in each
#     thread (the name changes in between);
# 10. fork (syscall_fork): the parent's write and clone only, the child
#     detached and free;
# 11. the same with follow-fork-mode child: the child's writes are caught;
# 12. non-stop mode, threads: as 9, each thread stopping on its own;
# 13. non-stop, raw packets: a wildcard vCont;c must not resume a thread
#     whose %Stop notification is still queued;
#
# All of it for the programs of INFDIR, then, when INFDIR is the 64-bit
# build, for the 32-bit ones (INFDIR32, default build/inferiors32; i386
# numbers: read 3, write 4, getpid 20, getppid 64, prctl 172) if they are
# built and the kernel runs them, else those tests are skipped.
. "$(dirname "$0")/../lib/e2e.sh"

NAME=syscall_loop
INFDIR32=${INFDIR32:-$TOP/build/inferiors32} # the -m32 build (make inferiors32)
NTESTS=0 # tests in one suite, for the skip of the 32-bit one

# set_arch PROG: the syscall numbers and register names of PROG's ABI.
set_arch() {
	if [[ $(pc_register "$1") == eip ]]; then
		BITS=32 READ=3 WRITE=4 GETPID=20 GETPPID=64 PRCTL=172 ORIG=orig_eax RET=eax
	else
		BITS=64 READ=0 WRITE=1 GETPID=39 GETPPID=110 PRCTL=157 ORIG=orig_rax RET=rax
	fi
}

# catch_lines: gdb's catchpoint reports in GDB_OUT, one a line, shortened
# to "call NAME" / "return NAME" (and "break FUNC" for breakpoints,
# "signal SIG" for signals).
catch_lines() {
	sed -n -E 's/^Catchpoint [0-9]+ \(call to syscall ([a-z_0-9]+)\), .*/call \1/p
		s/^Catchpoint [0-9]+ \(returned from syscall ([a-z_0-9]+)\), .*/return \1/p
		s/^Breakpoint [0-9]+, ([a-z_0-9]+) .*/break \1/p
		s/^Program received signal ([A-Z0-9]+), .*/signal \1/p' <<<"$GDB_OUT" | xargs
}

# thread_catches N: the catchpoint reports of gdb's thread N, as
# catch_lines, each with the thread's name: "call:threads return:worker-1".
thread_catches() {
	sed -n -E "s/^Thread $1 \"([^\"]*)\" hit Catchpoint [0-9]+ \\(call to syscall [a-z_0-9]+\\), .*/call:\\1/p
		s/^Thread $1 \"([^\"]*)\" hit Catchpoint [0-9]+ \\(returned from syscall [a-z_0-9]+\\), .*/return:\\1/p" \
		<<<"$GDB_OUT" | xargs
}

# out_lines FILE: gdb command that prints "LINES=N", N the lines the
# program has written so far that start with "tick".
out_lines() {
	echo "shell printf 'LINES=%s\\n' \"\$(grep -c '^tick' '$1')\""
}

suite() {
	local prog=$1 t=$2 n0=$_tap_n hex_w hex_p replies
	set_arch "$prog"

	# --- 1. catch syscall write
	launch "$prog"
	remote_gdb "$prog" 'catch syscall write' continue \
		"p \$$ORIG" "p \$$RET" "$(out_lines "$SERVER_OUT")" \
		continue "p \$$ORIG" "p \$$RET" "$(out_lines "$SERVER_OUT")" \
		continue delete continue
	like "$GDB_OUT" "^Catchpoint 1 \\(syscall 'write' \\[$WRITE\\]\\)\$" \
		"$t: catch syscall write: the catchpoint is write, number $WRITE"
	like "$GDB_OUT" '^Catchpoint 1 \(call to syscall write\), 0x[0-9a-f]+ in ' \
		"$t: stops at the entry of write"
	like "$GDB_OUT" '^Catchpoint 1 \(returned from syscall write\), 0x[0-9a-f]+ in ' \
		"$t: stops at the return of write"
	is "$(catch_lines)" 'call write return write call write' \
		"$t: entry, return, entry of the next write: nothing else"
	is "$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")" "$WRITE" "$t: at the entry \$$ORIG = $WRITE"
	is "$(sed -n 's/^\$2 = //p' <<<"$GDB_OUT")" -38 "$t: at the entry \$$RET = -ENOSYS"
	is "$(sed -n 's/^\$3 = //p' <<<"$GDB_OUT")" "$WRITE" "$t: at the return \$$ORIG = $WRITE"
	is "$(sed -n 's/^\$4 = //p' <<<"$GDB_OUT")" 7 "$t: at the return \$$RET = 7 bytes written"
	is "$(sed -n 's/^LINES=//p' <<<"$GDB_OUT" | xargs)" '0 1' \
		"$t: nothing written at the entry, the line written at the return"
	exited_with 11 "$t: catchpoint deleted"
	is "$(program_output | xargs)" 'tick 0 tick 1 tick 2 syscall_loop done n=3 exit=11' \
		"$t: the program wrote every line"

	# --- 2. catch syscall, no list: from main, the first syscalls in order
	launch "$prog"
	remote_gdb "$prog" 'break main' continue delete 'catch syscall' \
		continue "p \$$ORIG" continue continue continue "p \$$ORIG" delete continue
	like "$GDB_OUT" '^Catchpoint 2 \(any syscall\)$' "$t: catch syscall: any syscall"
	is "$(catch_lines)" 'break main call getpid return getpid call getppid return getppid' \
		"$t: catch syscall: getpid then getppid, entry and return"
	is "$(sed -n 's/^\$[12] = //p' <<<"$GDB_OUT" | xargs)" "$GETPID $GETPPID" \
		"$t: catch syscall: \$$ORIG is $GETPID then $GETPPID"
	exited_with 11 "$t: catch syscall deleted"

	# --- 3. a list of two: getpid and write, never getppid
	launch "$prog"
	remote_gdb "$prog" 'catch syscall getpid write' \
		continue continue continue continue continue continue "p \$$ORIG" \
		delete continue
	like "$GDB_OUT" "^Catchpoint 1 \\(syscalls 'getpid' \\[$GETPID\\] 'write' \\[$WRITE\\]\\)\$" \
		"$t: catch syscall getpid write: both"
	is "$(catch_lines)" 'call getpid return getpid call write return write call getpid return getpid' \
		"$t: catch syscall getpid write: getpid and write in order, no getppid"
	is "$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")" "$GETPID" "$t: the 6th stop is getpid's return"
	exited_with 11 "$t: list deleted"

	# --- 4. a breakpoint and a catchpoint together
	launch "$prog"
	remote_gdb "$prog" 'break tick' 'catch syscall write' \
		continue continue continue continue continue 'p progress' delete continue
	is "$(catch_lines)" 'break tick call write return write break tick call write' \
		"$t: break tick + catch syscall write: in program order"
	like "$GDB_OUT" '^\$1 = 1$' "$t: progress = 1 at the second write"
	unlike "$GDB_OUT" 'SIGTRAP|SIGSEGV' "$t: no stray signal"
	exited_with 11 "$t: breakpoint and catchpoint deleted"

	# --- 5. raw packets: exactly what the server reports
	hex_w=$(printf '%x' "$WRITE") hex_p=$(printf '%x' "$GETPID")
	launch "$prog"
	if ! server_is_gdbserver; then
		rsp 'QCatchSyscalls:2' 'QCatchSyscalls:1;zz' 'QCatchSyscalls:1;' 'QCatchSyscalls:0;1' \
			'QCatchSyscalls:1;400' 'QCatchSyscalls' '?'
		all_like "$(sed '$d' "$RSP_FILE")" '^E[0-9a-f]{2}$' "$t: raw: malformed QCatchSyscalls get Enn"
		like "$(tail -n 1 "$RSP_FILE")" '^T05' "$t: raw: then ? still gets the stop"
	else
		skip 2 'gdbserver: closes the connection on QCatchSyscalls:0;1'
	fi
	rsp '?' "QCatchSyscalls:1;$hex_p;$hex_w" c c c c c c 'QCatchSyscalls:0' c
	is "$RSP_RC" 0 "$t: raw: every packet answered"
	is "$(sed -n 2p "$RSP_FILE")" OK "$t: raw: QCatchSyscalls:1;$hex_p;$hex_w is OK"
	replies=$(sed -n 3,8p "$RSP_FILE")
	all_like "$replies" '^T05' "$t: raw: each c gets a T05 stop"
	is "$(grep -Eo 'syscall_(entry|return):[0-9a-f]+' <<<"$replies" | cut -d: -f2 | xargs)" \
		"$hex_p $hex_p $hex_w $hex_w $hex_p $hex_p" "$t: raw: getpid and write only, twice each (never getppid)"
	skip_if_gdbserver 'to a raw client its first syscall stop is a "return" (its entry/return toggle starts wrong)' ||
		is "$(grep -Eo 'syscall_(entry|return):[0-9a-f]+' <<<"$replies" | xargs)" \
			"syscall_entry:$hex_p syscall_return:$hex_p syscall_entry:$hex_w syscall_return:$hex_w syscall_entry:$hex_p syscall_return:$hex_p" \
			"$t: raw: entry and return of getpid and write only, in order"
	is "$(sed -n 9p "$RSP_FILE")" OK "$t: raw: QCatchSyscalls:0 is OK"
	is "$(sed -n 10p "$RSP_FILE")" W0b "$t: raw: then c runs to the exit (W0b)"
	kill -TERM "$SERVER_PID" 2>/dev/null
	server_exits

	# --- 6. attached while blocked in read(): the first stop is the entry
	# of the restarted read, then its return once there is input
	reader_ready "$(dirname "$prog")/demo_reader"
	start_server --attach :0 "$READER_PID" || bail "server did not attach"
	remote_gdb_bg "$WORK/read$BITS.out" "$(dirname "$prog")/demo_reader" 'catch syscall read' \
		continue "p \$$ORIG" "$(gdb_mark "$WORK/read$BITS.entry")" \
		"$(gdb_wait_file "$WORK/read$BITS.fed")" continue "p \$$RET" detach
	wait_until test -e "$WORK/read$BITS.entry"
	feed_reader ab
	touch "$WORK/read$BITS.fed"
	ok "$t: attached in read(): gdb ends" wait_exit "$GDB_PID"
	GDB_OUT=$(cat "$WORK/read$BITS.out")
	is "$(catch_lines)" 'call read return read' "$t: attached in read(): entry of the restarted read, then its return"
	is "$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")" "$READ" "$t: attached in read(): \$$ORIG = $READ"
	is "$(sed -n 's/^\$2 = //p' <<<"$GDB_OUT")" 1 "$t: attached in read(): it returns 1 byte"
	ok "$t: attached in read(): the server exits after the detach" server_exits
	ok "$t: attached in read(): the program got the whole line" reader_says '^demo> got: ab$'
	close_reader
	ok "$t: attached in read(): the program ends at end of input" wait_exit "$READER_PID"
	is "$EXIT_STATUS" 0 "$t: attached in read(): with status 0"

	# --- 7. stepi from a syscall-entry stop runs the syscall (as gdbserver
	# does: the step's trap is the stop, the return is not reported)
	launch "$prog"
	remote_gdb "$prog" 'catch syscall getpid' continue stepi "p \$$RET" \
		continue 'info breakpoints' delete continue
	is "$(catch_lines)" 'call getpid call getpid' "$t: stepi at getpid's entry, continue: the next getpid"
	is "$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")" "$INFERIOR_PID" "$t: after the stepi \$$RET is the pid"
	like "$GDB_OUT" '^[[:space:]]+catchpoint already hit 2 times$' "$t: info breakpoints: hit 2 times"
	exited_with 11 "$t: after stepi"

	# --- 8. ^C while blocked in a caught read: the read returns
	# -ERESTARTSYS (reported), then SIGINT, then the restarted read
	reader_ready "$(dirname "$prog")/demo_reader"
	start_server --attach :0 "$READER_PID" || bail "server did not attach"
	remote_gdb_bg "$WORK/int$BITS.out" "$(dirname "$prog")/demo_reader" 'catch syscall read' \
		continue "p \$$RET" "$(gdb_mark "$WORK/int$BITS.entry")" \
		continue "p \$$RET" "$(gdb_mark "$WORK/int$BITS.stop")" "$(gdb_wait_file "$WORK/int$BITS.fed")" \
		continue "p \$$RET" continue "p \$$RET" continue "p \$$RET" detach
	wait_until test -e "$WORK/int$BITS.entry"
	ok "$t: ^C: the program blocks in read" wait_until pid_running "$READER_PID"
	kill -INT "$GDB_PID"
	wait_until test -e "$WORK/int$BITS.stop"
	feed_reader ab
	touch "$WORK/int$BITS.fed"
	ok "$t: ^C: gdb ends" wait_exit "$GDB_PID"
	GDB_OUT=$(cat "$WORK/int$BITS.out")
	is "$(catch_lines)" 'call read return read signal SIGINT call read return read' \
		"$t: ^C: read returns, SIGINT, the read again: entry and return"
	is "$(sed -n 's/^\$[0-9]* = //p' <<<"$GDB_OUT" | xargs)" '-38 -512 -512 -38 1' \
		"$t: ^C: \$$RET: -ENOSYS, -ERESTARTSYS twice, -ENOSYS, 1 byte"
	ok "$t: ^C: the server exits after the detach" server_exits
	ok "$t: ^C: the program got the whole line" reader_says '^demo> got: ab$'
	close_reader
	ok "$t: ^C: the program ends at end of input" wait_exit "$READER_PID"

	# --- 9. threads: each worker names itself with prctl, in its own thread
	launch "$(dirname "$prog")/threads"
	remote_gdb "$(dirname "$prog")/threads" 'catch syscall prctl' \
		continue "p \$$ORIG" continue continue continue continue continue delete continue
	like "$GDB_OUT" "^Catchpoint 1 \\(syscall 'prctl' \\[$PRCTL\\]\\)\$" "$t: threads: catch syscall prctl ($PRCTL)"
	is "$(grep -c '^Thread [0-9]* "[^"]*" hit Catchpoint 1 (call to syscall prctl)' <<<"$GDB_OUT")" 3 \
		"$t: threads: three entries"
	is "$(grep -c '^Thread [0-9]* "[^"]*" hit Catchpoint 1 (returned from syscall prctl)' <<<"$GDB_OUT")" 3 \
		"$t: threads: three returns"
	is "$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")" "$PRCTL" "$t: threads: \$$ORIG = $PRCTL"
	if server_is_gdbserver; then
		skip 1 'gdbserver: a new thread'"'"'s first syscall stop is a "return" (its entry/return toggle)'
	else
		is "$(for n in 2 3 4; do thread_catches $n | sed 's/worker-[1-3]/worker-N/'; done | sort | uniq -c | xargs)" \
			'3 call:threads return:worker-N' \
			"$t: threads: in each worker, the entry (unnamed) then the return (named)"
	fi
	exited_with 0 "$t: threads"
	is "$(program_output)" 'sum=14' "$t: threads: the workers did their work"

	# --- 10. fork: the parent's catches only; the child (detached by gdb)
	# runs free
	launch "$(dirname "$prog")/syscall_fork"
	remote_gdb "$(dirname "$prog")/syscall_fork" 'catch syscall write clone' \
		continue continue continue continue continue continue continue
	is "$(catch_lines)" 'call write return write call clone return clone call write return write' \
		"$t: fork: the parent's write, clone, write; nothing of the child's"
	like "$GDB_OUT" '^\[Detaching after fork from child process [0-9]+\]$' "$t: fork: gdb detaches the child"
	exited_with 5 "$t: fork"
	is "$(program_output | xargs)" 'parent before child 1 child 2 parent: child ok' \
		"$t: fork: the child ran to its end, untraced"

	# --- 11. fork, follow-fork-mode child: the catch goes on in the child
	launch "$(dirname "$prog")/syscall_fork"
	remote_gdb "$(dirname "$prog")/syscall_fork" 'set follow-fork-mode child' 'catch syscall write' \
		continue continue continue continue continue continue continue
	is "$(catch_lines)" 'call write return write' "$t: follow child: the parent's write before the fork"
	like "$GDB_OUT" '^\[Detaching after fork from parent process [0-9]+\]$' "$t: follow child: gdb detaches the parent"
	if server_is_gdbserver; then
		skip 1 'gdbserver: a new process'"'"'s first syscall stop is a "return" (its entry/return toggle)'
	else
		is "$(thread_catches 2.1 | sed 's/:syscall_fork//g')" 'call return call return' \
			"$t: follow child: the child's two writes, entry and return"
	fi
	is "$(grep -c '^Thread 2\.1 .* hit Catchpoint 1 (.* syscall write)' <<<"$GDB_OUT")" 4 \
		"$t: follow child: four catches in the child"
	like "$GDB_OUT" '^\[Inferior 2 \(process [0-9]+\) exited with code 03\]$' "$t: follow child: the child exits with 3"
	ok "$t: follow child: the server exits" server_exits
	ok "$t: follow child: the parent runs on to its end" wait_until file_has "$SERVER_OUT" '^parent: child ok$'

	# --- 12. non-stop: the workers stop on their own, the others run.

	launch "$(dirname "$prog")/threads"
	ex_args 'set non-stop on' "target remote $TARGET" 'catch syscall prctl' \
		'continue -a' 'continue -a' 'continue -a' 'continue -a' 'continue -a' 'continue -a' \
		delete 'continue -a'
	run_gdb "$(dirname "$prog")/threads" "${EX[@]}"
	is "$(grep -c '^Thread [0-9]* "[^"]*" hit Catchpoint 1 (call to syscall prctl)' <<<"$GDB_OUT")" 3 \
		"$t: non-stop: three entries"
	is "$(grep -c '^Thread [0-9]* "[^"]*" hit Catchpoint 1 (returned from syscall prctl)' <<<"$GDB_OUT")" 3 \
		"$t: non-stop: three returns"
	if server_is_gdbserver; then
		skip 1 'gdbserver: a new thread'"'"'s first syscall stop is a "return" (its entry/return toggle)'
	else
		is "$(for n in 2 3 4; do thread_catches $n | sed 's/worker-[1-3]/worker-N/'; done | sort | uniq -c | xargs)" \
			'3 call:threads return:worker-N' \
			"$t: non-stop: in each worker, the entry (unnamed) then the return (named)"
	fi
	unlike "$GDB_OUT" 'Could not read registers|Unexpected vCont reply' "$t: non-stop: no register read of a running thread"
	exited_with 0 "$t: non-stop"
	E2E_WAIT=5 wait_until file_has "$SERVER_OUT" '^sum=14$'
	is "$(program_output)" 'sum=14' "$t: non-stop: the workers did their work"
	kill -TERM "$SERVER_PID" 2>/dev/null # (if it is still there)

	# --- 13. non-stop, raw: a wildcard vCont;c that comes after a %Stop
	# notification but before gdb pulled it (vStopped) must leave that
	# thread stopped (gdbserver: linux_set_resume_request ignores wildcard
	# resumes of threads with a queued stop reply).  gdb does exactly this
	# when its own "continue -a" crosses a notification: 12 then reads the
	# registers of a thread it was told is stopped (E10), gets E03 for its
	# next vCont and loses the connection.
	if server_is_gdbserver; then
		skip 3 'gdbserver 13.1 crashes (SIGSEGV) on this raw non-stop sequence'
	else
		launch "$prog" 3 200000
		rsp 'QNonStop:1' '?' vStopped "QCatchSyscalls:1;$hex_w" 'vCont;c' --notif \
			'vCont;c' --sleep 300 vStopped "Hg$(printf '%x' "$INFERIOR_PID")" g
		like "$(sed -n 6p "$RSP_FILE")" "^%Stop:T05.*syscall_entry:$hex_w;" \
			"$t: non-stop raw: the write's entry comes as a %Stop notification"
		is "$(sed -n 8p "$RSP_FILE")" OK \
			"$t: non-stop raw: the wildcard vCont;c leaves the notified thread stopped: no new stop for vStopped"
		like "$(sed -n 10p "$RSP_FILE" | cut -c1-16)" "^da$( ((BITS == 64)) && echo ffffffffffffff || echo ffffff)" \
			"$t: non-stop raw: its registers are still those of the entry (\$$RET = -ENOSYS)"
		kill -TERM "$SERVER_PID" 2>/dev/null
		server_exits
	fi

	NTESTS=$((_tap_n - n0))
}

suite "$INFDIR/$NAME" "$(set_arch "$INFDIR/$NAME" && echo "$BITS-bit")"
if [[ $(set_arch "$INFDIR/$NAME" && echo $BITS) == 32 ]]; then
	: # INFDIR is the 32-bit build already: done
elif [[ ! -x $INFDIR32/$NAME ]]; then
	skip "$NTESTS" "no $INFDIR32/$NAME (make inferiors32)"
elif ! "$TOP/tests/lib/kernel_runs.sh" "$INFDIR32"; then
	skip "$NTESTS" "this kernel does not run 32-bit programs"
else
	suite "$INFDIR32/$NAME" 32-bit
fi

done_testing
