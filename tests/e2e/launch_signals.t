#!/bin/bash
# launch_signals.t: a launched program gets the signal mask and the ignored
# signals its launcher was started with (what the user's shell gave it), as
# with gdbserver and strace, not utraced's or ustrace's own: both block
# signals and ignore SIGPIPE for their own sake. strace's test "sigign"
# depends on it. The program is grep reading its own /proc status.
. "$(dirname "$0")/../lib/e2e.sh"

USTRACE=${USTRACE:-$TOP/build/ustrace}
status_re='^Sig(Blk|Ign):'
# with_signals CMD...: CMD with SIGPIPE and SIGHUP ignored, SIGUSR2 blocked
with_signals() {
	perl -e 'use POSIX; $SIG{PIPE} = $SIG{HUP} = "IGNORE";
		sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGUSR2)); exec @ARGV or die' "$@"
}
want=$(with_signals grep -E "$status_re" /proc/self/status)
like "$want" 'SigIgn:.*1001$' 'without a tracer: SIGPIPE and SIGHUP ignored'

got=$(with_signals "$USTRACE" -qq -e trace=none grep -E "$status_re" /proc/self/status 2>&1)
is "$got" "$want" 'ustrace PROG: the same mask and ignored signals'
got=$("$USTRACE" -qq -e trace=none grep -E "$status_re" /proc/self/status 2>&1)
is "$got" "$(grep -E "$status_re" /proc/self/status)" \
	'ustrace PROG: the mask and ignored signals of the shell'

# utraced launching the program, gdb continuing it to its end
with_signals "$SERVER" :0 grep -E "$status_re" /proc/self/status </dev/null \
	>"$WORK/srv.out" 2>"$WORK/srv.err" &
SERVER_PID=$!
track "$SERVER_PID"
wait_until file_has "$WORK/srv.err" '^Listening on port' || bail "server did not start"
TARGET=$HOST:$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$WORK/srv.err" | head -1)
remote_gdb /bin/grep continue
wait_exit "$SERVER_PID"
is "$(grep -E "$status_re" "$WORK/srv.out")" "$want" \
	"$(basename "$SERVER") PROG: the same mask and ignored signals"
done_testing
