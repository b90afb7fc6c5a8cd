# e2e.sh: helpers for the end-to-end tests in tests/e2e/*.t.
#
# A test is a bash script that sources this file, prints TAP and ends with
# done_testing:
#
#	. "$(dirname "$0")/../lib/e2e.sh"
#	start_server :0 "$INFDIR/breakloop" || bail "server did not start"
#	remote_gdb "$INFDIR/breakloop" 'break bump' 'continue'
#	like "$GDB_OUT" '^Breakpoint 1, bump' 'breakpoint hit'
#	done_testing
#
# Environment:
#	SERVER     the server under test (default: $TOP/build/utraced);
#	           /usr/bin/gdbserver must pass every test too
#	INFDIR     the test programs (default: $TOP/build/inferiors)
#	E2E_WAIT   seconds any one wait may last (default 30)
#	E2E_KEEP   set: keep the scratch directory (its path is printed)
#
# Every wait is bounded by E2E_WAIT, and every process a test starts is
# killed when the test exits, whatever way it exits.

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVER=${SERVER:-$TOP/build/utraced}
INFDIR=${INFDIR:-$TOP/build/inferiors}
SRCDIR=$TOP/tests/inferiors
RSPCLIENT=${RSPCLIENT:-$TOP/build/tests/rspclient}
GDB=${GDB:-gdb}
HOST=127.0.0.1
E2E_WAIT=${E2E_WAIT:-30}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/utraced-e2e.XXXXXX")
export DEBUGINFOD_URLS= # gdb must not go to the network

# ---------------------------------------------------------------- TAP

_tap_n=0
_tap_failed=0

# diag TEXT...: prints TEXT as TAP comments (on stderr, as Test::More does).
diag() {
	printf '%s\n' "$*" | sed 's/^/# /' >&2
}

_tap_result() { # _tap_result STATUS NAME
	_tap_n=$((_tap_n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		[[ $2 == *"# TODO"* ]] || _tap_failed=$((_tap_failed + 1)) # a known bug does not fail
	fi
	return "$1"
}

# ok NAME CMD [ARGS...]: passes when CMD succeeds.
ok() {
	local name=$1
	shift
	"$@"
	_tap_result $? "$name"
}

# is GOT WANT NAME: passes when the strings are equal.
is() {
	[[ $1 == "$2" ]]
	_tap_result $? "$3" || diag "got:  '$1'" "want: '$2'"
}

# like TEXT REGEX NAME: passes when a line of TEXT matches the extended
# regular expression REGEX (grep -E).  unlike: when no line does.
like() {
	grep -Eq -- "$2" <<<"$1"
	_tap_result $? "$3" || diag "no line matches /$2/ in:" "$1"
}

unlike() {
	! grep -Eq -- "$2" <<<"$1"
	_tap_result $? "$3" || diag "a line matches /$2/ in:" "$1"
}

# all_like TEXT REGEX NAME: passes when every line of TEXT matches REGEX.
all_like() {
	! grep -Evq -- "$2" <<<"$1"
	_tap_result $? "$3" || diag "not every line matches /$2/ in:" "$1"
}

# skip COUNT REASON: COUNT tests skipped.
skip() {
	local i
	for ((i = 0; i < $1; i++)); do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n # skip $2"
	done
}

# hw_watchpoints_work: whether this machine's debug registers trap (some
# virtual machines accept them and never do; gdbserver fails there too).
hw_watchpoints_work() {
	"$TOP/build/tests/hw_watch_probe" 2>/dev/null
}

# skip_all REASON: the whole test is skipped (before any test ran).
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# bail REASON: stops the test; what is left is not run.
bail() {
	echo "Bail out! $*"
	exit 255
}

done_testing() {
	echo "1..$_tap_n"
	exit $((_tap_failed > 254 ? 254 : _tap_failed))
}

# server_is_gdbserver: true when SERVER is GDB's own gdbserver.
server_is_gdbserver() {
	[[ $(basename "$SERVER") == gdbserver* ]]
}

# skip_all_for_gdbserver WHAT: for a test of what only utraced can do.
skip_all_for_gdbserver() {
	server_is_gdbserver && skip_all "gdbserver cannot $*"
	return 0
}

# line_of FILE MARK: the number of the line of tests/inferiors/FILE that
# holds the comment "LINE:MARK".
line_of() {
	grep -n "LINE:$2 \*/" "$SRCDIR/$1" | head -1 | cut -d: -f1
}

# pc_register PROG: the name of the program counter, rip or eip.
pc_register() {
	case $(od -An -j4 -N1 -tu1 "$1" | tr -d ' ') in
	1) echo eip ;;
	*) echo rip ;;
	esac
}

# ---------------------------------------------------------- processes

_pids=()

# track PID...: PIDs are killed when the test ends (each only if it is
# still the same process: a pid that was freed may have been reused).
track() {
	local pid
	for pid; do
		_pids+=("$pid:$(pid_started "$pid")")
	done
}

# _proc_stat PID: the fields of /proc/PID/stat after the command name
# (the state first); fails when there is no such process.
_proc_stat() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	echo "${stat##*) }"
}

# pid_started PID: when the process started (clock ticks after boot).
pid_started() {
	local fields
	fields=$(_proc_stat "$1") || return 0
	set -- $fields
	echo "${20}"
}

# pid_state PID: the one-letter state (R, S, t, Z, ...).
pid_state() {
	local fields
	fields=$(_proc_stat "$1") || return 1
	echo "${fields:0:1}"
}

# pid_alive PID: the process exists and is not a zombie.
pid_alive() {
	local s
	s=$(pid_state "$1") && [[ $s != [ZX] ]]
}

# pid_running PID: alive and not stopped (nor stopped by a tracer).
pid_running() {
	local s
	s=$(pid_state "$1") && [[ $s != [tTZX] ]]
}

# wait_until CMD [ARGS...]: retries CMD until it succeeds; false after
# E2E_WAIT seconds.
wait_until() {
	local deadline=$((SECONDS + E2E_WAIT))
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.05
	done
}

# wait_gone PID: waits until PID is dead (or a zombie).
wait_gone() {
	wait_until eval "! pid_alive $1"
}

# wait_exit PID: for a child of this shell: waits until it ends and puts
# its exit status in EXIT_STATUS (empty when it did not end in time).
wait_exit() {
	EXIT_STATUS=
	wait_gone "$1" || return 1
	wait "$1"
	EXIT_STATUS=$?
}

# file_has FILE REGEX: a line of FILE matches REGEX.
file_has() {
	grep -Eq -- "$2" "$1" 2>/dev/null
}

_cleanup() {
	local entry pid left=()
	for entry in "${_pids[@]}"; do
		pid=${entry%%:*}
		[[ $(pid_started "$pid") == "${entry#*:}" ]] && pid_alive "$pid" &&
			kill -TERM "$pid" 2>/dev/null && left+=("$pid")
	done
	for pid in "${left[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			pid_alive "$pid" || break
			sleep 0.1
		done
		pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	done
	if [[ -n ${E2E_KEEP:-} ]]; then
		echo "# scratch directory kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap _cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------- server

_nservers=0

# created_pid: N from the first "Process PROG created; pid = N" on stdin.
created_pid() {
	sed -n 's/^Process .* created; pid = \([0-9][0-9]*\)$/\1/p' | head -1
}

# start_server ARGS...: runs "$SERVER ARGS..." in the background (stdin
# /dev/null, stdout and stderr to files) and waits for it to listen: for
# "Listening on port N" on stderr, or for the socket of a unix:PATH COMM.
# Sets
#	SERVER_PID              the server
#	SERVER_OUT, SERVER_ERR  files with its stdout (where a launched
#	                        program writes too) and stderr
#	PORT                    the port from "Listening on port N"
#	INFERIOR_PID            N from "Process PROG created; pid = N", if any
#	TARGET                  what gdb's "target remote" is given
# Fails (and says why) when the server does not listen in time.
start_server() {
	local comm arg
	for arg; do
		[[ $arg == --* ]] || { comm=$arg && break; }
	done
	_nservers=$((_nservers + 1))
	SERVER_OUT=$WORK/server$_nservers.out
	SERVER_ERR=$WORK/server$_nservers.err
	PORT= INFERIOR_PID= TARGET=
	"$SERVER" "$@" </dev/null >"$SERVER_OUT" 2>"$SERVER_ERR" &
	SERVER_PID=$!
	track "$SERVER_PID"
	if [[ ${comm:-} == unix:* ]]; then
		TARGET=${comm#unix:}
		# the socket is bound before the program starts: wait for the announcement
		wait_until eval '(file_has "$SERVER_ERR" "^Listening on" && [[ -S $TARGET ]]) ||
			! pid_alive $SERVER_PID'
	else
		wait_until eval 'file_has "$SERVER_ERR" "^Listening on port" || ! pid_alive $SERVER_PID'
		PORT=$(sed -n 's/^Listening on port \([0-9][0-9]*\).*/\1/p' "$SERVER_ERR" | head -1)
		TARGET=$HOST:$PORT
	fi
	INFERIOR_PID=$(created_pid <"$SERVER_ERR")
	[[ -n $INFERIOR_PID ]] && track "$INFERIOR_PID"
	if ! pid_alive "$SERVER_PID" || [[ -z $PORT && $comm != unix:* ]]; then
		diag "server did not start listening: $SERVER $*" "stderr:" "$(cat "$SERVER_ERR")"
		return 1
	fi
}

# run_server ARGS...: runs "$SERVER ARGS..." in the foreground, for
# what ends by itself (--help, errors); bounded by E2E_WAIT.  Sets RUN_RC,
# RUN_OUT and RUN_ERR (its stdout and stderr).
run_server() {
	local pid
	timeout -k 5 "$E2E_WAIT" "$SERVER" "$@" </dev/null >"$WORK/run.out" 2>"$WORK/run.err"
	RUN_RC=$?
	RUN_OUT=$(cat "$WORK/run.out")
	RUN_ERR=$(cat "$WORK/run.err")
	pid=$(created_pid <<<"$RUN_ERR")
	[[ -n $pid ]] && track "$pid"
	return 0
}

# server_exits: waits for the server to end; its status in EXIT_STATUS.
server_exits() {
	wait_exit "$SERVER_PID"
}

# listens: how many times the server said "Listening on port" so far.
listens() {
	grep -c '^Listening on port' "$SERVER_ERR"
}

# server_stderr: what the server printed on stderr so far.
server_stderr() {
	cat "$SERVER_ERR"
}

# ---------------------------------------------------------------- gdb

GDB_SETUP=(-nx -batch -q
	-iex 'set pagination off' -iex 'set confirm off' -iex 'set width 0'
	-iex 'set height 0' -iex 'set debuginfod enabled off')

# run_gdb ARGS...: runs "gdb -batch ARGS..." (bounded by E2E_WAIT); its
# stdout and stderr in GDB_OUT, its exit status in GDB_RC.
run_gdb() {
	GDB_OUT=$(timeout -k 5 "$E2E_WAIT" "$GDB" "${GDB_SETUP[@]}" "$@" </dev/null 2>&1)
	GDB_RC=$?
	((GDB_RC == 124)) && diag "gdb timed out: gdb $*"
	return 0
}

# ex_args CMD...: sets EX to -ex CMD for each CMD.
ex_args() {
	local cmd
	EX=()
	for cmd; do
		EX+=(-ex "$cmd")
	done
}

# remote_gdb PROG CMD...: gdb loads PROG, connects to TARGET (the last
# server started), runs each CMD, and quits (which kills a program the
# server launched, and detaches from one it attached to).
remote_gdb() {
	local prog=$1
	shift
	ex_args "target remote $TARGET" "$@"
	run_gdb "$prog" "${EX[@]}"
}

# remote_gdb_bg OUTFILE PROG CMD...: the same in the background, output
# to OUTFILE; GDB_PID is gdb itself (so that it can be sent signals).
# Use wait_exit "$GDB_PID" to wait for it.
remote_gdb_bg() {
	local out=$1 prog=$2
	shift 2
	ex_args "target remote $TARGET" "$@"
	"$GDB" "${GDB_SETUP[@]}" "$prog" "${EX[@]}" </dev/null >"$out" 2>&1 &
	GDB_PID=$!
	track "$GDB_PID"
}

# -------------------------------------------------------- rspclient

# rsp ITEM...: rspclient against TARGET; its output in RSP_OUT and, with
# every trailing empty line kept (empty replies), in the file RSP_FILE; its
# status in RSP_RC (0 done, 2 timeout, 3 connection closed).
rsp() {
	local addr=$TARGET
	[[ -S $addr ]] && addr=unix:$addr
	RSP_FILE=$WORK/rsp.out
	timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "$addr" "$@" >"$RSP_FILE" 2>&1
	RSP_RC=$?
	RSP_OUT=$(cat "$RSP_FILE")
}

# -------------------------------------------------- program with stdin

# start_reader PROG ARGS...: runs PROG in its own session (like a job
# started from an interactive shell: its own process group), its stdin a
# FIFO that stays open, its stdout and stderr in READER_OUT.  Sets
# READER_PID.  Feed it with feed_reader, end its input with close_reader.
start_reader() {
	local fifo=$WORK/reader.in
	READER_OUT=$WORK/reader.out
	rm -f "$fifo"
	mkfifo "$fifo"
	# In a script, background jobs share the script's process group, so
	# setsid(1) needs no fork and $! is the program itself.
	setsid "$@" <"$fifo" >"$READER_OUT" 2>&1 &
	READER_PID=$!
	track "$READER_PID"
	# A writer that keeps the FIFO open, so that the program sees no end
	# of input between two feed_reader calls.  It must have it open before
	# the first feed_reader, or that one's close would be the end.
	sleep infinity >"$fifo" &
	_reader_holder=$!
	track "$_reader_holder"
	wait_until eval '[[ $(readlink "/proc/$_reader_holder/fd/1") == "$fifo" ]]' ||
		bail "the program's stdin did not open"
}

# reader_ready PROG: start_reader, then one line ("hello") answered, so that
# the program is in its read loop; bails out if it does not answer.
reader_ready() {
	start_reader "$@"
	feed_reader hello
	reader_says '^demo> got: hello' || bail "demo_reader did not answer: $(cat "$READER_OUT")"
}

# feed_reader LINE: writes LINE to the reader's stdin (fails after
# E2E_WAIT seconds if the reader is gone: opening a FIFO that nobody reads
# would block for ever).
feed_reader() {
	timeout -k 2 "$E2E_WAIT" bash -c 'printf "%s\n" "$1" >"$2"' _ "$1" "$WORK/reader.in"
}

# close_reader: ends the reader's stdin.
close_reader() {
	kill "$_reader_holder" 2>/dev/null
}

# reader_says REGEX: waits until the reader's output has a line matching
# REGEX.
reader_says() {
	wait_until file_has "$READER_OUT" "$1"
}

# ------------------------------------------------------------ launches

# launch PROG ARGS...: starts the server on a free port with PROG ARGS
# (bails out of the test when it does not start).
launch() {
	start_server :0 "$@" || bail "server did not start: $SERVER :0 $*"
}

# exited_with CODE WHAT: checks that gdb reported the launched program's
# exit with CODE (a number; "exited normally" for 0), and that the server
# then exits too, with status 0.  Three tests.
exited_with() {
	local want="exited with code 0$(printf '%o' "$1")" # gdb: "0%o", 7 -> 07, 11 -> 013
	(($1 == 0)) && want="exited normally"
	like "$GDB_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) $want\\]\$" "$2: $want"
	ok "$2: the server exits" server_exits
	is "$EXIT_STATUS" 0 "$2: server exit status 0"
}

# program_output: what the launched program wrote on stdout.
program_output() {
	cat "$SERVER_OUT"
}

# skip_if_gdbserver REASON: with gdbserver as SERVER, skips one test for
# REASON (something gdbserver gets wrong) and succeeds; else fails.
# Use: skip_if_gdbserver "it crashes" || ok 'the test' ...
skip_if_gdbserver() {
	server_is_gdbserver || return 1
	skip 1 "gdbserver: $1"
}

# ------------------------------------------------------------- engines
# For the tests of many clients on one process (tests/e2e/engines_*.t).

# ping_worst FILE: the worst round trip (ms) of an `rspclient --ping` run
# whose output is FILE; empty if it printed none.
ping_worst() {
	sed -n 's/^max=\([0-9]*\) .*/\1/p' "$1"
}

# rendezvous_sock PID: the rendezvous socket of PID, where a client joins
# the process as an engine of its own (UTRACED_RUNDIR must be set).
rendezvous_sock() {
	echo "$UTRACED_RUNDIR/$1.sock"
}

# use_rundir: a private UTRACED_RUNDIR for this test.
use_rundir() {
	export UTRACED_RUNDIR=$WORK/run
	mkdir -p "$UTRACED_RUNDIR"
}

# gdb_wait_file FILE: a gdb command (for ex_args) that waits until FILE
# exists, at most E2E_WAIT seconds: how a batch gdb waits for the test.
# (The waiting shell also stops when gdb is gone.)
gdb_wait_file() {
	echo "shell i=0; while [ ! -e '$1' ] && [ \$i -lt $((E2E_WAIT * 20)) ] && kill -0 \$PPID 2>/dev/null; do sleep 0.05; i=\$((i + 1)); done"
}

# gdb_mark FILE: a gdb command that creates FILE: how a batch gdb tells the
# test that it got there.
gdb_mark() {
	echo "shell touch '$1'"
}

# mem_bytes PID ADDR N: N bytes at ADDR in PID's memory (/proc/PID/mem),
# as hex bytes separated by spaces ("8b 05 c6 ...").
mem_bytes() {
	dd if="/proc/$1/mem" bs=1 skip=$(($2)) count="$3" iflag=skip_bytes status=none |
		od -An -tx1 -v | xargs
}

# elf_bytes PROG VADDR N: N bytes at the link-time address VADDR in the
# file PROG (found through its LOAD program headers), as mem_bytes.
elf_bytes() {
	local type off vaddr paddr filesz rest at=
	while read -r type off vaddr paddr filesz rest; do
		[[ $type == LOAD ]] || continue
		if (($2 >= vaddr && $2 < vaddr + filesz)); then
			at=$(($2 - vaddr + off))
			break
		fi
	done < <(readelf -lW "$1")
	[[ -n $at ]] || return 1
	od -An -tx1 -v -j "$at" -N "$3" "$1" | xargs
}

# load_bias PID PROG: what is added to PROG's link-time addresses in the
# running PID: the start of its lowest mapping for a PIE, 0 otherwise.
load_bias() {
	local path start rest
	if [[ $(od -An -j16 -N1 -tu1 "$2" | tr -d ' ') != 3 ]]; then
		echo 0
		return
	fi
	path=$(readlink -f "$2")
	while read -r start rest; do
		if [[ $rest == *" $path" ]]; then
			echo $((0x${start%%-*}))
			return
		fi
	done <"/proc/$1/maps"
	return 1
}

# tracer_of PID: the TracerPid of PID (0: not traced).
tracer_of() {
	sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null
}
