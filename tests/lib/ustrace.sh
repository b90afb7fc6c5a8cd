# ustrace.sh: helpers for tests/e2e/ustrace_*.t: run a program under strace
# and under ustrace, and compare the two traces.
#
#	. "$(dirname "$0")/../lib/e2e.sh"
#	. "$(dirname "$0")/../lib/ustrace.sh"
#	same_trace files                   # ustrace_calls files, default options
#	same_trace files -y -s 8           # ... with options
#
# USTRACE is the tracer under test (default: $TOP/build/ustrace).

USTRACE=${USTRACE:-$TOP/build/ustrace}
CALLS=$INFDIR/ustrace_calls
mkdir -p "$WORK/scratch"

# normalise FILE: what differs from run to run becomes a placeholder:
# addresses, pids (prefixes, return values of fork/clone, set_tid_address,
# si_pid), ports, random bytes, file sizes, the environment's size and a
# child's CPU time (SIGCHLD's si_utime, si_stime).
normalise() {
	sed -E \
		-e 's/0x[0-9a-f]{5,}/ADDR/g' \
		-e 's/[0-9]+ vars \*\//N vars *\//' \
		-e 's/(getrandom\(")[^"]*/\1RANDOM/' \
		-e 's/\b(si_pid|pid)=[0-9]+/\1=PID/g' \
		-e 's/^[0-9]+ +/PID /; s/^\[pid +[0-9]+\] /[pid PID] /' \
		-e 's/(=> \{parent_tid=\[)[0-9]+/\1PID/' \
		-e 's/^((PID |\[pid PID\] )?(clone3?|set_tid_address|fork|vfork|wait4|getpid|gettid)\(.*= )[0-9]+$/\1PID/' \
		-e 's/(wait4|kill|tgkill)\([0-9]+/\1(PID/; s/(tgkill\(PID, )[0-9]+/\1PID/' \
		-e 's/(FUTEX_[A-Z_|]+, )[0-9]{3,}/\1PID/' \
		-e 's/htons\([0-9]+\)/htons(PORT)/' \
		-e 's/st_size=[0-9]+/st_size=N/' \
		-e 's/si_([us])time=[0-9]+( \/\* [0-9.]+ s \*\/)?/si_\1time=T/g' "$1"
}

# joined FILE: normalise, then each "<unfinished ...>" line joined with its
# "<... resumed>" line and the lines sorted: the content of a multi-thread
# trace without the interleaving, which is the scheduler's choice.
joined() {
	awk '
		/ <unfinished \.\.\.>$/ { p = $1; sub(/ <unfinished \.\.\.>$/, ""); open[p] = $0; next }
		/<\.\.\. [a-z0-9_]+ resumed>/ { p = $1; if (p in open) { sub(/^.*<\.\.\. [a-z0-9_]+ resumed>/, ""); print open[p] $0; delete open[p]; next } }
		{ print }
		END { for (p in open) print open[p] " <unfinished ...>" }' "$1" >"$1.joined"
	normalise "$1.joined" | sed -E 's/ +=/ =/' | sort
}

# run_both OPTS... PROG ARGS...: the traces of PROG under strace and ustrace
# (same options, -o added) in $WORK/strace.out and $WORK/ustrace.out.
run_both() {
	TMPDIR=$WORK/scratch timeout -k 5 "$E2E_WAIT" strace -o "$WORK/strace.out" "$@" \
		>/dev/null 2>"$WORK/strace.err" </dev/null
	STRACE_RC=$?
	TMPDIR=$WORK/scratch timeout -k 5 "$E2E_WAIT" "$USTRACE" -o "$WORK/ustrace.out" "$@" \
		>/dev/null 2>"$WORK/ustrace.err" </dev/null
	USTRACE_RC=$?
}

# same_trace MODE OPTS...: one test: the traces of "ustrace_calls MODE" are
# the same after normalise (the diff is shown when not).  same_trace_mt: the
# same for several threads, compared with joined.
same_trace() {
	local mode=$1 d
	shift
	run_both "$@" "$CALLS" "$mode"
	d=$(diff <(normalise "$WORK/strace.out") <(normalise "$WORK/ustrace.out"))
	[[ -z $d ]]
	_tap_result $? "$mode $*: same trace as strace" ||
		diag "$d" "ustrace stderr:" "$(cat "$WORK/ustrace.err")"
}

# same_split MODE OPTS...: one test: with -ff -o PREFIX, the files PREFIX.TID
# of strace and of ustrace, taken in tid order, hold the same traces after
# normalise.
same_split() {
	local mode=$1 d
	shift
	rm -f "$WORK"/strace.ff.* "$WORK"/ustrace.ff.*
	TMPDIR=$WORK/scratch timeout -k 5 "$E2E_WAIT" strace -ff -o "$WORK/strace.ff" "$@" \
		"$CALLS" "$mode" >/dev/null 2>"$WORK/strace.err" </dev/null
	TMPDIR=$WORK/scratch timeout -k 5 "$E2E_WAIT" "$USTRACE" -ff -o "$WORK/ustrace.ff" "$@" \
		"$CALLS" "$mode" >/dev/null 2>"$WORK/ustrace.err" </dev/null
	d=$(diff <(split_files strace.ff) <(split_files ustrace.ff))
	[[ -z $d ]]
	_tap_result $? "$mode -ff $*: the same files as strace's, each the same trace" ||
		diag "$d" "ustrace stderr:" "$(cat "$WORK/ustrace.err")"
}

# split_files PREFIX: $WORK/PREFIX.* in tid order, each normalised under a
# header with its rank (the tids differ from run to run).
split_files() {
	local n=0 f
	for f in $(ls "$WORK/$1".* | awk -F. '{ print $NF, $0 }' | sort -n | cut -d' ' -f2); do
		n=$((n + 1))
		echo "== file $n"
		normalise "$f"
	done
}

same_trace_mt() {
	local mode=$1 d todo=
	shift
	if [[ $mode == todo:* ]]; then
		todo=${mode#todo:}
		mode=${todo%%:*}
		todo=" # TODO ${todo#*:}"
	fi
	run_both "$@" "$CALLS" "$mode"
	d=$(diff <(joined "$WORK/strace.out") <(joined "$WORK/ustrace.out"))
	[[ -z $d ]]
	_tap_result $? "$mode $*: same lines as strace (threads joined)$todo" ||
		diag "$d" "ustrace stderr:" "$(cat "$WORK/ustrace.err")"
}
