#!/bin/bash
# gdbts_compare.sh LIST GDBSERVER_DIR UTRACED_DIR STUCK BOARD: TAP comparing
# the two servers' runs of GDB's test files in LIST (tests/vm/guest.sh: one
# gdb.sum per file in each DIR, named after the file, / as _; STUCK lists the
# runs that left the guest's CPU stuck, "BOARD SERVER FILE" a line): utraced
# must pass at least what gdbserver passes, in total and file by file, and
# fail no more. A file whose every gdbserver run got stuck has nothing to be
# compared with and is skipped; one whose utraced runs all got stuck fails.
# Also prints the per-file table of docs/conformance.md, as comments.
set -u
list=$1 ref=$2 sum=$3 stuck=$4 board=$5 n=0 failed=0
t() { # t OK NAME
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
count() { # count SUM WHAT: DejaGnu's "# of WHAT N", 0 when absent
	sed -n "s/^# of $2[[:space:]]*\([0-9]*\)$/\1/p" "$1" | head -1 | grep . || echo 0
}
bad() { # bad SUM: its FAIL and UNRESOLVED lines
	grep -E '^(FAIL|UNRESOLVED):' "$1" | sort -u
}
stuck_runs() { # stuck_runs SERVER FILE: how many of its runs got stuck
	grep -cxF "$board $1 $2" "$stuck"
}
result() { # result DIR SERVER FILE: "passes/failures", "stuck N" or "-"
	local s=$1/${3//\//_}.sum
	if [[ -f $s ]]; then
		echo "$(count "$s" "expected passes")/$(($(count "$s" "unexpected failures") + $(count "$s" "unresolved testcases")))"
	elif (($(stuck_runs "$2" "$3"))); then
		echo "stuck $(stuck_runs "$2" "$3")"
	else
		echo "-"
	fi
}
rp=0 rf=0 up=0 uf=0
echo "# | file | gdbserver passes/FAIL+UNRESOLVED | utraced |"
while read -r f; do
	r=$ref/${f//\//_}.sum u=$sum/${f//\//_}.sum
	echo "# | $f | $(result "$ref" gdbserver "$f") | $(result "$sum" utraced "$f") |"
	if [[ ! -f $u ]]; then
		t 1 "$f: utraced has a result ($(result "$sum" utraced "$f"))"
		continue
	fi
	if [[ ! -f $r ]]; then
		echo "ok $((n += 1)) - $f # SKIP no gdbserver result ($(result "$ref" gdbserver "$f"))"
		continue
	fi
	want=$(count "$r" "expected passes") got=$(count "$u" "expected passes")
	rp=$((rp + want)) up=$((up + got))
	rf=$((rf + $(bad "$r" | wc -l))) uf=$((uf + $(bad "$u" | wc -l)))
	((got >= want)); t $? "$f: utraced passes $got, gdbserver $want"
	more=$(comm -13 <(bad "$r") <(bad "$u"))
	[[ -z $more ]]; t $? "$f: no FAIL or UNRESOLVED that gdbserver has not"
	[[ -n $more ]] && sed 's/^/#   /' <<<"$more"
done < <(grep -v '^#' "$list")
echo "# files both servers ran: gdbserver $rp passes, $rf FAIL/UNRESOLVED; utraced $up, $uf"
((rp > 0)); t $? "gdbserver passes some ($rp)"
((up >= rp)); t $? "utraced passes at least as many as gdbserver ($up >= $rp)"
echo "1..$n"
((failed == 0))
