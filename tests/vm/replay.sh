#!/bin/bash
# replay.sh NAME.tap: what prove runs for each test that ran in the guest
# (tests/vm/run.sh): the TAP the guest saved, its stderr, its exit status.
cat "$1"
cat "${1%.tap}.err" >&2 2>/dev/null
exit "$(cat "${1%.tap}.rc" 2>/dev/null || echo 255)"
