#!/bin/bash
# ustrace_compare: each syscall family of tests/inferiors/ustrace_calls.c
# (files, memory, network, signals, polling, processes, threads) traced by
# strace and by ustrace: the two traces must be the same, line by line,
# once addresses and pids are normalised.  Then the options that change
# the output: -e trace= classes and negation, -s, -y, -z, -Z, -qq,
# -e signal=, -x, -xx, -P, -ff, and the formats of -t, -T and -r.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"

command -v strace >/dev/null || skip_all "no strace to compare with"

for mode in files mem net signals poll proc; do
	same_trace $mode
done
# pthread_join's futex wait (= 0) or its EAGAIN is the scheduler's choice, for strace too
same_trace_mt 'todo:threads:pthread_join waits on the futex or not, as the scheduler goes' -f

same_trace files -e trace=%file
same_trace mem '-e trace=!%memory,%desc'
same_trace net -e trace=%network
same_trace signals -e trace=%signal,kill
same_trace files -s 5 -e trace=read,write
same_trace files -y -e trace=openat,read,write,close
same_trace files -x
same_trace files -xx -y -e trace=openat,read,write,close
same_trace files -P "$WORK/scratch/a"
same_trace files -y -P "$WORK/scratch/a" -P "$WORK/scratch/d"
same_trace files -z
same_trace files -Z
same_trace signals -qq -e signal=none
same_trace proc -e trace=%process
same_trace_mt threads -f -e trace=write,exit,exit_group

# -f follows fork, vfork and clone children: [pid N] lines, +++ exited +++ of each
same_trace_mt proc -f
same_trace_mt forks -f
same_trace_mt forks -f -e trace=%process,write
# ... and with the seccomp filter, which they inherit
same_trace_mt proc -f --seccomp-bpf -e trace=%process,write
same_trace_mt forks -f --seccomp-bpf -e trace=write,exit_group

# -ff: a file per task (threads, fork children), no prefixes, no unfinished lines
same_split threads -e trace=write,exit,exit_group
same_split forks -e trace=%process,write

# exit status: ustrace ends as the program did
run_both "$CALLS" segv
is "$USTRACE_RC" "$STRACE_RC" "a killed program: same exit status as strace ($STRACE_RC)"
like "$(cat "$WORK/ustrace.out")" '^\+\+\+ killed by SIGSEGV' '+++ killed by SIGSEGV +++'
like "$(cat "$WORK/ustrace.out")" '^--- SIGSEGV \{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x8\} ---$' \
	'--- SIGSEGV with its siginfo ---'

# -c: the same syscalls, calls and errors (times differ by nature)
run_both -c "$CALLS" files
counts() { awk 'NF >= 5 && $1 ~ /^[0-9.]+$/ { print $(NF), $4, (NF == 6 ? $5 : 0) }' "$1" | sort; }
is "$(counts "$WORK/ustrace.out")" "$(counts "$WORK/strace.out")" '-c: same calls and errors per syscall'
like "$(cat "$WORK/ustrace.out")" '^% time +seconds +usecs/call +calls +errors syscall$' '-c: strace header'

# -c sums system CPU time, as strace does; -w the time from entry to exit.
# cpu: five 20 ms nanosleeps (no CPU) and five 4 MiB reads of /dev/urandom
secs() { awk -v s="$2" '$NF == s && NF >= 5 { print $2 }' "$1"; }
run_both -c "$CALLS" cpu
is "$(counts "$WORK/ustrace.out")" "$(counts "$WORK/strace.out")" '-c cpu: same calls and errors per syscall'
ok "-c: clock_nanosleep, asleep, costs no system time ($(secs "$WORK/ustrace.out" clock_nanosleep) s; strace $(secs "$WORK/strace.out" clock_nanosleep) s)" \
	awk -v v="$(secs "$WORK/ustrace.out" clock_nanosleep)" 'BEGIN { exit !(v != "" && v < 0.02) }'
ok "-c: read of /dev/urandom does ($(secs "$WORK/ustrace.out" read) s; strace $(secs "$WORK/strace.out" read) s)" \
	awk -v v="$(secs "$WORK/ustrace.out" read)" 'BEGIN { exit !(v != "" && v > 0.005) }'
run_both -c -w "$CALLS" cpu
ok "-c -w: clock_nanosleep's wall-clock time ($(secs "$WORK/ustrace.out" clock_nanosleep) s; strace $(secs "$WORK/strace.out" clock_nanosleep) s)" \
	awk -v v="$(secs "$WORK/ustrace.out" clock_nanosleep)" 'BEGIN { exit !(v != "" && v >= 0.099) }'

# -t, -tt, -ttt, -T: the time formats
run_both -ttt -T -e trace=close "$CALLS" files
all_like "$(grep -v '+++ exited' "$WORK/ustrace.out")" '^[0-9]+\.[0-9]{6} close\(.* <[0-9]+\.[0-9]{6}>$' '-ttt -T formats'
run_both -tt -e trace=close "$CALLS" files
all_like "$(grep -v '+++ exited' "$WORK/ustrace.out")" '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} close\(' '-tt format'
run_both -r -e trace=close "$CALLS" files
all_like "$(cat "$WORK/ustrace.out")" '^ {5}[0-9]\.[0-9]{6} (close\(|\+\+\+ exited)' '-r format'
like "$(head -1 "$WORK/ustrace.out")" '^     0\.000000 close\(' '-r: the first line at 0'
run_both -t -r -e trace=close "$CALLS" files
all_like "$(cat "$WORK/ustrace.out")" '^[0-9]{2}:[0-9]{2}:[0-9]{2} \(\+ {5}[0-9]\.[0-9]{6}\) (close\(|\+\+\+ exited)' '-t -r format'

done_testing
