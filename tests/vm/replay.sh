#!/bin/bash
# replay.sh NAME.tap: what prove runs for each test that ran in the guest
# (tests/vm/run.sh): the TAP the guest saved, its stderr, its exit status.
# The runs with gdbserver (NAME holds ".gdbserver.") are there to compare:
# their failures are shown as TODO and do not fail the lane.
tap=$1 rc=$(cat "${1%.tap}.rc" 2>/dev/null || echo 255)
cat "${tap%.tap}.err" >&2 2>/dev/null
if [[ $(basename "$tap") != *.gdbserver.* ]]; then
	cat "$tap"
	exit "$rc"
fi
sed -E 's/^(not ok [0-9]+.*)$/\1 # TODO gdbserver (for comparison)/' "$tap"
((rc == 0)) || echo "# gdbserver's run exited $rc" >&2
exit 0
