#!/bin/bash
# replay.t: every committed input of every fuzz harness (fuzz/corpus/NAME/)
# through the harness built with the ordinary compiler
# (build/fuzz/replay/NAME_fuzz, fuzz/replay_main.c): one test per harness,
# failed by a crash, an abort or a failed check. Found inputs that once
# crashed are kept in the corpus, so this is also the regression test of
# every fix a fuzzer led to (docs/reliability.md).
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$TOP/build}
n=0
failed=0
names=$(sed -n 's/^FUZZ_NAMES *:= *//p' "$TOP/fuzz/fuzz.mk")
echo "1..$(echo $names | wc -w)"
for name in $names; do
	n=$((n + 1))
	bin=$B/fuzz/replay/${name}_fuzz
	corpus=$TOP/fuzz/corpus/$name
	count=$(ls "$corpus" 2>/dev/null | wc -l)
	if [[ ! -x $bin ]]; then
		echo "not ok $n - $name: $bin is not built (make $bin)"
		failed=1
	elif ((count == 0)); then
		echo "not ok $n - $name: no corpus in $corpus"
		failed=1
	elif out=$(timeout 300 "$bin" "$corpus" 2>&1); then
		echo "ok $n - $name: $count inputs replayed"
	else
		echo "not ok $n - $name: the replay failed"
		echo "$out" | tail -n 30 | sed 's/^/# /' >&2
		failed=1
	fi
done
exit $failed
