#!/bin/bash
# `utraced --mount DIR` run as root serves every user, each for their own
# processes (docs/fuse.md, "Who may open what"). This test makes a user of
# its own for that (utr-test-PID, removed with `userdel -r` however the
# test ends), with a process of root's and one of the user's:
#
#   the user opens root's DIR/<pid>/gdb: EACCES (the kernel refuses it on
#   the 0500 directory, default_permissions), and reads root's engines: EACCES;
#   root's process is not touched;
#   the user's listing of DIR shows its own process and not root's;
#   the pty behind the user's DIR/<pid>/gdb is the user's, mode 0600;
#   a real gdb run as the user attaches through DIR/<pid>/gdb to its own
#   process, reads a register and a variable, detaches: the process runs on;
#   a process of the user's uid but root's gid: EACCES from utraced itself
#   (the modes let the user through, ptrace would not); so is one of the
#   user's with a capability the user lacks; and a session on the user's
#   own process cannot vAttach either of them;
#   a user has at most 32 sessions (each holds a descriptor of the daemon).
#
# Skipped as a whole without root, useradd/userdel or setpriv, or where
# FUSE cannot be used.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/engines_threads
[[ $(id -u) == 0 ]] || skip_all 'needs root (to add a user)'
for tool in useradd userdel setpriv; do
	command -v "$tool" >/dev/null || skip_all "needs $tool"
done
server_is_gdbserver && skip_all 'gdbserver has no --mount'

# The user goes after everything else: its processes are killed first
# (tracked), then the mount, then the user and its home.
TUSER=
_users_cleanup() {
	_fuse_cleanup
	[[ -n $TUSER ]] && userdel -r -f "$TUSER" >/dev/null 2>&1
}
trap _users_cleanup EXIT

name=utr-test-$$
useradd -m -s /bin/sh -c 'utraced test (temporary)' "$name" >"$WORK/useradd.err" 2>&1 ||
	skip_all "useradd $name failed: $(head -1 "$WORK/useradd.err")"
TUSER=$name
TUID=$(id -u "$TUSER")
TGID=$(id -g "$TUSER")
THOME=$(getent passwd "$TUSER" | cut -d: -f6)

# as_user CMD...: CMD as the test user (its uid and gid only, its HOME).
as_user() {
	setpriv --reuid="$TUID" --regid="$TGID" --clear-groups env HOME="$THOME" "$@"
}
as_user true || skip_all 'setpriv cannot switch to the test user'

start_mount || bail "utraced --mount did not start"
chmod o+x "$WORK" # so that the user reaches $MNT

"$PROG" >"$WORK/root.out" 2>&1 &
P=$!
track "$P"
# (setpriv itself, not the function: $! must be the program, which it becomes)
setpriv --reuid="$TUID" --regid="$TGID" --clear-groups "$PROG" >"$WORK/own.out" 2>&1 &
OWN=$!
track "$OWN"
wait_until file_has "$WORK/root.out" '^started' || bail "engines_threads (root) did not start"
wait_until file_has "$WORK/own.out" '^started' || bail "engines_threads ($TUSER) did not start"
is "$(stat -c %u "/proc/$OWN")" "$TUID" "the user's process runs as $TUSER"

# --- root's process, as the user
open_as_user() { # open_as_user PATH [MODE]: open_error as the test user
	as_user bash -c "$(declare -f open_error); open_error $1 ${2:-}"
}
is "$(stat -c '%a %u' "$MNT/$P")" '500 0' "root's DIR/<pid>: 0500, root's"
is "$(open_as_user "$MNT/$P/gdb")" 'Permission denied' "the user opens root's DIR/<pid>/gdb: EACCES"
is "$(open_as_user "$MNT/$P/engines" "'<'")" 'Permission denied' "the user reads root's engines: EACCES"
ok "... root's process was not touched" traced_by_nobody "$P"

# --- listing: what the lister may debug (docs/fuse.md)
LIST=$(as_user ls "$MNT")
like "$LIST" "^$OWN\$" "the user's listing of DIR shows its own process"
unlike "$LIST" "^$P\$" "... and not root's"
like "$(ls "$MNT")" "^$OWN\$" "root's listing shows the user's process too"

# --- its own process, with a real gdb run as the user
is "$(as_user stat -L -c '%a %u' "$MNT/$OWN/gdb")" "600 $TUID" "the pty behind the user's gdb: 0600, the user's"
is "$(as_user cat "$MNT/$OWN/engines" 2>&1)" '' "the user reads its own engines: nobody attached"
GDB_OUT=$(cd / && timeout -k 5 "$E2E_WAIT" setpriv --reuid="$TUID" --regid="$TGID" --clear-groups \
	env HOME="$THOME" "$GDB" "${GDB_SETUP[@]}" "$PROG" \
	-ex "target remote $MNT/$OWN/gdb" -ex 'info registers rip' \
	-ex 'printf "worker1-ran=%d\n", counts[1] > 0' \
	-ex "shell cat $MNT/$OWN/engines" -ex detach </dev/null 2>&1)
like "$GDB_OUT" '^rip +0x[0-9a-f]+' 'the user reads a register of its process through DIR/<pid>/gdb'
like "$GDB_OUT" '^worker1-ran=1$' '... and a variable'
like "$GDB_OUT" "^0 endpoint=fuse client=[0-9]+ uid=$TUID state=stopped" \
	"... as an engine of its own, with the user's uid"
like "$GDB_OUT" "^\\[Inferior 1 \\(process $OWN\\) detached\\]" '... and detaches'
ok '... the process runs on, traced by nobody' wait_until traced_by_nobody "$OWN"
N=$(grep -c '^tick ' "$WORK/own.out")
ok '... and ticks' wait_until eval '(($(grep -c "^tick " "$WORK/own.out") > N))'

# --- the user's uid, root's gid: the modes let the user through, ptrace would not
setpriv --reuid="$TUID" --regid=0 --clear-groups sleep 1000 &
ODD=$!
track "$ODD"
wait_until eval '[[ $(stat -c %u /proc/$ODD) == "$TUID" ]]'
is "$(open_as_user "$MNT/$ODD/gdb")" 'Permission denied' 'same uid, other gid: EACCES from utraced itself'
ok '... and it was not stopped' traced_by_nobody "$ODD"
unlike "$(as_user ls "$MNT")" "^$ODD\$" '... nor listed'

# --- the user's ids, but a capability the user lacks (ptrace would refuse)
setpriv --reuid="$TUID" --regid="$TGID" --clear-groups --inh-caps +net_admin \
	--ambient-caps +net_admin sleep 1000 &
CAPPED=$!
track "$CAPPED"
wait_until eval '[[ $(stat -c %u /proc/$CAPPED) == "$TUID" ]] && grep -q "^CapPrm:.*[1-9a-f]" /proc/$CAPPED/status'
is "$(open_as_user "$MNT/$CAPPED/gdb")" 'Permission denied' \
	"the user's process with a capability the user lacks: EACCES"
unlike "$(as_user ls "$MNT")" "^$CAPPED\$" '... nor listed'

# --- a session on its own process cannot attach to those either (from a
# second inferior: gdb would kill the first to attach in its place)
GDB_OUT=$(cd / && timeout -k 5 "$E2E_WAIT" setpriv --reuid="$TUID" --regid="$TGID" --clear-groups \
	env HOME="$THOME" "$GDB" "${GDB_SETUP[@]}" -ex "target extended-remote $MNT/$OWN/gdb" \
	-ex add-inferior -ex 'inferior 2' -ex "attach $ODD" -ex "attach $CAPPED" \
	-ex 'inferior 1' -ex detach </dev/null 2>&1)
like "$GDB_OUT" "Attaching to process $ODD failed" 'vAttach through the link to the other-gid process: refused'
like "$GDB_OUT" "Attaching to process $CAPPED failed" '... to the capable one: refused'
ok '... neither was touched' eval "traced_by_nobody $ODD && traced_by_nobody $CAPPED"
ok "... and the user's own process runs on" wait_until traced_by_nobody "$OWN"

# --- at most 32 sessions per user
SESSIONS=$(as_user bash -c '
	for i in $(seq 33); do
		if ! exec {fd}<>"$1"; then
			echo "open $i refused"
			break
		fi
		printf "\$?#3f" >&$fd
		sleep 0.05
	done
	grep -c "endpoint=fuse" "$2"
' _ "$MNT/$OWN/gdb" "$MNT/$OWN/engines" 2>&1)
like "$SESSIONS" 'open 33 refused' 'a user opening 33 sessions: the 33rd open is refused'
like "$SESSIONS" 'Resource temporarily unavailable' '... with EAGAIN'
like "$SESSIONS" '^32$' '... 32 engines meanwhile'
ok '... all gone when it exits' wait_until traced_by_nobody "$OWN"

done_testing
