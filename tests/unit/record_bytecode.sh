#!/bin/bash
# record_bytecode.sh: records the agent bytecode real gdb sends for the
# conditions in tests/unit/data/gdb_conditions.txt (one per line) as
# "CONDITION<TAB>LEN,HEX" lines on stdout, for agent_inproc_test's corpus
# (tests/unit/gdb_bytecode.h is made from its output by hand). Each
# condition is a breakpoint on agent_conds' visit(), evaluated on the
# target, with utraced: its Z0 packet carries the bytecode.
#   tests/unit/record_bytecode.sh > /tmp/corpus.txt
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/inferiors/agent_conds
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
while IFS= read -r cond; do
	[[ -z $cond || $cond == \#* ]] && continue
	"$TOP/build/utraced" :4457 "$P" 10 >/dev/null 2>&1 &
	sleep 0.3
	timeout 30 gdb -batch -nx -ex 'target remote :4457' \
		-ex 'set breakpoint condition-evaluation target' -ex "break visit if $cond" \
		-ex 'set debug remote 1' -ex continue -ex kill "$P" >"$LOG" 2>&1
	wait
	x=$(grep -a -o 'Sending packet: \$Z0,[0-9a-f]*,1;X[^#]*' "$LOG" | head -1 | sed 's/.*;X//')
	printf '%s\t%s\n' "$cond" "${x:-NONE}"
done <"$TOP/tests/unit/data/gdb_conditions.txt"
