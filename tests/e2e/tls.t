#!/bin/bash
# tls: `print` of thread-local variables (qSymbol, qGetTLSAddr).  Each
# thread sees its own copy: tls_value and libc's errno are 22 and 33 in
# the worker, 44 and 55 in main.  A dynamically linked program (the
# variable in the main program, errno in libc.so.6), the same one linked
# -static (no link map: gdb asks with LM 0), and one that execs itself
# first (the symbols are looked up again).  Before libc has run, there is
# no TLS to find: an error, as gdbserver says.  Hostile qGetTLSAddr
# packets get an error; hostile qSymbol answers are survived.
. "$(dirname "$0")/../lib/e2e.sh"

SRC='tls_vars\.c'

# one_program PROG WHAT [ARG]: both threads' copies through gdb.
one_program() {
	local prog=$1 what=$2
	launch "$prog" "${@:3}"
	remote_gdb "$prog" 'print tls_value' 'break worker_stop' continue \
		'print tls_value' 'print (int) errno' 'thread 1' 'print tls_value' 'print (int) errno' \
		continue
	like "$GDB_OUT" '^Cannot find thread-local storage for .*executable file .*tls_vars' \
		"$what: at the first instruction, no TLS yet: an error"
	like "$GDB_OUT" "hit Breakpoint 1, worker_stop \\(\\) at .*$SRC:$(line_of tls_vars.c worker-stop)\$" \
		"$what: the worker stops in worker_stop"
	is "$(grep -Eo '^\$[0-9]+ = .*' <<<"$GDB_OUT" | xargs)" '$1 = 22 $2 = 33 $3 = 44 $4 = 55' \
		"$what: tls_value and errno, the worker's then main's"
	is "$(grep -c '^Cannot find thread-local storage' <<<"$GDB_OUT")" 1 \
		"$what: no TLS error once libc runs"
	exited_with 0 "$what"
	like "$(program_output)" '^tls=44 worker=22$' "$what: the program's own view agrees"
}

one_program "$INFDIR/tls_vars" dynamic
one_program "$INFDIR/tls_vars_static" static
# the program execs itself first: its symbols are looked up again
one_program "$INFDIR/tls_vars" 'after an exec' exec

# --- hostile qGetTLSAddr: errors, and the server goes on
launch "$INFDIR/tls_vars"
pid=$(printf '%x' "$INFERIOR_PID")
rsp '?' "qGetTLSAddr:zz,0,0" "qGetTLSAddr:$pid,zz,0" "qGetTLSAddr:$pid,0" \
	"qGetTLSAddr:$pid,0,0,0" "qGetTLSAddr:7fffffff,0,0" "qGetTLSAddr:p$pid.7fffffff,0,0" \
	"qGetTLSAddr:$pid,0,ffffffffffffffff" "qGetTLSAddr:$pid,0,0"
is "$(sed 1d "$RSP_FILE" | grep -Evc '^E[0-9a-fA-F]{2}$')" 0 'hostile qGetTLSAddr: each one an error'
is "$(sed 1d "$RSP_FILE" | wc -l)" 8 'hostile qGetTLSAddr: eight replies'
# --- hostile qSymbol answers: an error, OK, or the next question
rsp 'qSymbol::' 'qSymbol:zz:78' 'qSymbol:1:' 'qSymbol:1:zz' 'qSymbol:1:666f6f' 'qSymbol:' \
	'qSymbol:616263' "qSymbol::$(printf 'a%.0s' {1..300})" 'qSymbol::'
is "$(grep -Evc '^(OK|E[0-9a-fA-F]{2}|qSymbol:[0-9a-f]*|)$' "$RSP_FILE")" 0 \
	'hostile qSymbol: errors, OK or questions'
rsp '?'
like "$RSP_OUT" '^T' 'the server still answers'
rsp --nowait k --expect-close
ok 'the server exits' server_exits

done_testing
