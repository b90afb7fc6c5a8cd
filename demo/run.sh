#!/bin/bash
# The README's first command (`make demo`): the RFC's demo, through utraced.
#
# A program sits in read() waiting for input. utraced attaches to it, a
# real gdb looks at it (backtrace, registers, a global, a breakpoint that is
# hit when we type a line), then detaches; the program runs on and still
# answers its input. Everything printed is what a user would see.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
work=$(mktemp -d)
trap 'exec 7>&- 2>/dev/null; kill $reader 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

mkfifo "$work/in"
"$b/inferiors/demo_reader" <"$work/in" >"$work/out" 2>&1 &
reader=$!
exec 7>"$work/in" # keep the program's stdin open
echo "first line" >&7
sleep 0.3

say "a program (pid $reader) is waiting in read(); its output so far:"
cat "$work/out"; echo

say "gdb attaches through utraced, looks around, sets a breakpoint, detaches"
( sleep 2; echo "second line" >&7 ) &
typist=$!
timeout 60 gdb -q -batch -nx \
	-ex "target remote | $b/utraced --attach - $reader" \
	-ex 'bt' \
	-ex 'info registers rip rsp' \
	-ex 'print lines_seen' \
	-ex 'print prompt' \
	-ex 'break say' \
	-ex 'echo \n(continuing: a line is typed into the program in a moment)\n' \
	-ex 'continue' \
	-ex 'bt' \
	-ex 'print lines_seen' \
	-ex 'delete' \
	-ex 'detach' \
	"$b/inferiors/demo_reader" 2>&1 | grep -v '^Reading '
wait $typist

say "the program runs on after detach; it still answers:"
echo "third line" >&7
sleep 0.3
cat "$work/out"; echo
grep -q 'got: third line' "$work/out" && kill -0 $reader &&
	say "demo done: process $reader alive and well"
