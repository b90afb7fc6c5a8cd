#!/bin/bash
# gdbts_compare.sh GDBSERVER_SUM UTRACED_SUM: TAP comparing two gdb.sum files
# of the same GDB testsuite run (tests/vm/guest.sh): utraced must pass at
# least what gdbserver passes, in total and file by file, and fail no more.
set -u
ref=$1 sum=$2 n=0 failed=0
t() { # t OK NAME
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
count() { # count SUM WHAT: DejaGnu's "# of WHAT N", 0 when absent
	sed -n "s/^# of $2[[:space:]]*\([0-9]*\)$/\1/p" "$1" | head -1 | grep . || echo 0
}
per_file() { # per_file SUM: "FILE PASSES" for each test file run
	awk '/^Running .*\.exp \.\.\.$/ { f = $2; sub(/.*\/testsuite\//, "", f); n[f] += 0 }
	     /^PASS: / { f = $2; sub(/:$/, "", f); n[f]++ }
	     END { for (f in n) print f, n[f] }' "$1" | sort
}
[[ -s $ref ]]; t $? "gdbserver's summary: $ref"
[[ -s $sum ]]; t $? "utraced's summary: $sum"
if ((failed)); then
	echo "1..$n"
	exit 1
fi
rp=$(count "$ref" "expected passes") rf=$(count "$ref" "unexpected failures")
up=$(count "$sum" "expected passes") uf=$(count "$sum" "unexpected failures")
echo "# gdbserver: $rp passes, $rf unexpected failures; utraced: $up passes, $uf unexpected failures"
((rp > 0)); t $? "gdbserver passes some ($rp)"
((up >= rp)); t $? "utraced passes at least as many as gdbserver ($up >= $rp)"
((uf <= rf)); t $? "utraced fails no more than gdbserver ($uf <= $rf)"
while read -r f want; do
	got=$(per_file "$sum" | awk -v f="$f" '$1 == f { print $2 }')
	((${got:-0} >= want)); t $? "$f: utraced passes ${got:-0}, gdbserver $want"
done < <(per_file "$ref")
if ((failed)); then
	echo "# utraced's failures that gdbserver has not:"
	comm -13 <(grep -E '^(FAIL|UNRESOLVED):' "$ref" | sort -u) \
		<(grep -E '^(FAIL|UNRESOLVED):' "$sum" | sort -u) | sed 's/^/#   /'
fi
echo "1..$n"
((failed == 0))
