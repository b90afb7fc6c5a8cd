#!/bin/bash
# ustrace_seccomp: --seccomp-bpf.  The trace is strace's, line for line,
# under the same options; untraced syscalls make no ptrace stop at all
# (USTRACE_STATS counts the stops the engine reaped: about two per traced
# syscall with the filter, two per syscall without); strace's messages
# when the option cannot apply (no -f, -p, nothing to filter).
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"

command -v strace >/dev/null || skip_all "no strace to compare with"

for mode in files mem net signals poll; do
	same_trace $mode -f --seccomp-bpf -e trace=write
done
same_trace files -f --seccomp-bpf -e trace=%file,close
same_trace mem -f --seccomp-bpf '-e trace=!%memory'
same_trace signals -f --seccomp-bpf -e trace=%signal

# stops: syscall_loop makes 3 syscalls per iteration, one of them a write
N=3000
stops() { # OPTS...: the ptrace stops of one traced run of syscall_loop N
	USTRACE_STATS=1 timeout -k 5 "$E2E_WAIT" "$USTRACE" -o /dev/null "$@" "$INFDIR/syscall_loop" $N \
		>/dev/null 2>"$WORK/stats.err"
	sed -n 's/^.*ustrace: \([0-9]*\) ptrace stops$/\1/p' "$WORK/stats.err"
}
with=$(stops -f --seccomp-bpf -e trace=write)
without=$(stops -f -e trace=write)
diag "ptrace stops for $((3 * N)) syscalls, $N of them writes: $with with the filter, $without without"
ok "with the filter: about two stops per write ($with for $N writes)" \
	test "${with:-0}" -ge $((2 * N)) -a "${with:-0}" -le $((2 * N + 20))
ok "without it: two per syscall ($without for $((3 * N)))" test "${without:-0}" -ge $((6 * N))

# where strace 6.1 does not use the filter, neither do we, with its words
msg() { "$USTRACE" -o /dev/null "$@" 2>&1 >/dev/null | grep -v 'ustrace: Process'; }
is "$(msg --seccomp-bpf -e trace=write "$CALLS" files)" \
	"$USTRACE: --seccomp-bpf cannot be used without -f/--follow-forks, disabling" 'without -f: disabled'
is "$(msg -f --seccomp-bpf "$CALLS" files)" \
	"$USTRACE: Seccomp filter is requested but there are no syscalls to filter.  See -e trace to filter syscalls." \
	'nothing to filter: disabled'
with=$(stops --seccomp-bpf -e trace=write)
ok "without -f: a stop per entry and exit again ($with)" test "${with:-0}" -ge $((6 * N))

start_reader "$CALLS" block
"$USTRACE" -f --seccomp-bpf -e trace=read -o "$WORK/p.out" -p "$READER_PID" 2>"$WORK/p.err" &
UPID=$!
track "$UPID"
wait_until file_has "$WORK/p.err" 'attached$'
feed_reader x
ok 'with -p: traced as usual' wait_until file_has "$WORK/p.out" '^[0-9]+ +read\(0, "x", 1\) += 1$'
kill -INT "$UPID"
wait_exit "$UPID"
like "$(cat "$WORK/p.err")" 'ustrace: --seccomp-bpf is not enabled for processes attached with -p$' \
	'with -p: strace'"'"'s message'
ok 'with -p: the program runs on' pid_alive "$READER_PID"
close_reader

# ^C: the program we started carries the filter, and untraced its read()
# would fail with ENOSYS: it gets the signal, as strace's child does
mkfifo "$WORK/in"
"$USTRACE" -f --seccomp-bpf -e trace=read -o "$WORK/c.out" "$CALLS" block <"$WORK/in" 2>"$WORK/c.err" &
UPID=$!
track "$UPID"
exec {feed}>"$WORK/in"
echo y >&$feed
wait_until file_has "$WORK/c.out" '^[0-9]+ +read\(0, "y", 1\) += 1$'
PROG=$(sed -n '1s/^\([0-9]*\) .*/\1/p' "$WORK/c.out")
kill -INT "$UPID"
ok '^C: ustrace ends' wait_exit "$UPID"
ok '^C: the program, which carries the filter, got SIGINT too' eval '[[ -n $PROG ]] && wait_gone "$PROG"'
exec {feed}>&-

done_testing
