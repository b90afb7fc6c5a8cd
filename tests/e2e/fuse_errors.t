#!/bin/bash
# `utraced --mount DIR`: what may not be opened, and by whom; the mount's
# own life (a DIR with ':', a stale mount left by a killed daemon, a live
# one, SIGTERM with a session open).
#
#   DIR/<tid>/gdb of a thread, or of a kernel thread: EINVAL
#   a read-only open of DIR/<pid>/gdb: EINVAL (a `grep -r` must not stop it)
#   a process that is gone: ENOENT
#   another user's process: EACCES (the kernel, from the 0600 modes), and
#   EACCES from utraced itself where the modes let the user through but
#   ptrace would not (same uid, other gid); one's own process: fine.
# The user tests run as root with setpriv(1) and the user nobody; they are
# skipped where that is not possible.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

start_mount || bail "utraced --mount did not start"
chmod o+x "$WORK" # so that another user reaches $MNT

"$INFDIR/engines_threads" >"$WORK/threads.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/threads.out" '^started' || bail "engines_threads did not start"

# --- what cannot be opened
TID=$(ls "/proc/$P/task" | grep -vx "$P" | head -1)
ok 'DIR/<tid> of a thread exists' test -d "$MNT/$TID"
is "$(open_error "$MNT/$TID/gdb")" 'Invalid argument' 'a thread (non-leader tid): EINVAL'
unlike "$(ls "$MNT")" "^$TID\$" 'threads are not listed'
like "$(ls "$MNT")" "^$P\$" 'the process is listed'
unlike "$(ls "$MNT")" "^$SERVER_PID\$" 'the daemon does not list itself'

KTHREAD=
for stat in /proc/[0-9]*/stat; do
	s=$(cat "$stat" 2>/dev/null) || continue
	set -- ${s##*) }
	if (($7 & 0x200000)); then
		KTHREAD=${stat//[^0-9]/}
		break
	fi
done
if [[ -n $KTHREAD ]]; then
	is "$(open_error "$MNT/$KTHREAD/gdb")" 'Invalid argument' "a kernel thread ($KTHREAD): EINVAL"
	unlike "$(ls "$MNT")" "^$KTHREAD\$" 'kernel threads are not listed'
else
	skip 2 'no kernel thread visible'
fi

is "$(open_error "$MNT/$P/gdb" "<")" 'Invalid argument' 'gdb opened read-only: EINVAL'
ok '... and the process was not stopped' traced_by_nobody "$P"
is "$(open_error "$MNT/$P/engines" "<>")" 'Permission denied' 'engines opened for writing: EACCES'

sleep 0 &
GONE=$!
wait "$GONE"
is "$(open_error "$MNT/$GONE/gdb")" 'No such file or directory' 'a process that is gone: ENOENT'
is "$(open_error "$MNT/999999999/gdb")" 'No such file or directory' 'a pid that never was: ENOENT'
is "$(open_error "$MNT/$P/nothing" "<")" 'No such file or directory' 'no such file under DIR/<pid>: ENOENT'
is "$(open_error "$MNT/$P/nothing")" 'No such file or directory' '... nor can one be made: ENOENT, as in /proc'
is "$(open_error "$MNT/$P/gdb")" ok 'the process itself: opened (and closed: its engine leaves)'
ok '... and it runs on, traced by nobody' wait_until traced_by_nobody "$P"

# --- other users
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ "$@"
}
if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null || ! getent passwd 65534 >/dev/null ||
	! as_nobody true 2>/dev/null; then
	skip 9 'needs root, setpriv and the user nobody (65534)'
else
	is "$(as_nobody bash -c "$(declare -f open_error); open_error $MNT/$P/gdb")" \
		'Permission denied' "nobody opens root's process: EACCES"
	is "$(as_nobody bash -c "$(declare -f open_error); open_error $MNT/$P/engines '<'")" \
		'Permission denied' "nobody reads root's engines: EACCES"
	ok '... root'"'"'s process was not touched' traced_by_nobody "$P"

	setpriv --reuid=65534 --regid=65534 --clear-groups "$INFDIR/engines_threads" \
		>"$WORK/own.out" 2>&1 &
	OWN=$!
	track "$OWN"
	wait_until file_has "$WORK/own.out" '^started' || bail "engines_threads as nobody did not start"
	LIST=$(as_nobody ls "$MNT")
	ok 'nobody lists its own process, not root'"'"'s' eval \
		'grep -qx "$OWN" <<<"$LIST" && ! grep -qx "$P" <<<"$LIST"'
	GDB_OUT=$(cd / && timeout -k 5 "$E2E_WAIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/ "$GDB" "${GDB_SETUP[@]}" "$INFDIR/engines_threads" \
		-ex "target remote $MNT/$OWN/gdb" -ex 'info threads' -ex detach </dev/null 2>&1)
	like "$GDB_OUT" '^\* 1 +Thread [0-9]+\.[0-9]+ "engines_threads"' 'nobody debugs its own process with gdb'
	like "$GDB_OUT" "^\\[Inferior 1 \\(process $OWN\\) detached\\]" '... and detaches'
	ok '... which runs on' wait_until traced_by_nobody "$OWN"

	# uid nobody, gid root: its files are nobody's, but ptrace wants the gids too
	setpriv --reuid=65534 --regid=0 --clear-groups sleep 1000 &
	ODD=$!
	track "$ODD"
	wait_until eval '[[ $(stat -c %u /proc/$ODD) == 65534 ]]'
	is "$(as_nobody bash -c "$(declare -f open_error); open_error $MNT/$ODD/gdb")" \
		'Permission denied' 'same uid, other gid: EACCES from utraced itself'
fi

# --- the mount itself
run_server --mount "$WORK/a:b"
is "$RUN_RC" 1 "a DIR with ':' is refused"
like "$RUN_ERR" "must not contain ':'" '... saying why'

run_server --mount "$MNT"
is "$RUN_RC" 1 'a DIR with a live mount is refused'
like "$RUN_ERR" 'already mounted' '... saying why'

MNT2=$WORK/mnt2
start_mount "$MNT2" || bail "second mount did not start"
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
like "$(ls "$MNT2" 2>&1)" 'Transport endpoint is not connected' 'a killed daemon leaves a stale mount'
start_mount "$MNT2" || bail "mount over the stale one did not start"
like "$(server_stderr)" 'replacing a stale mount' 'the next daemon replaces it'
ok '... and serves' test -e "$MNT2/$P/gdb"

# SIGTERM while a gdb holds the process: it is let go, the mount goes.
TARGET=$MNT2/$P/gdb
remote_gdb_bg "$WORK/gdb.out" "$INFDIR/engines_threads" "$(gdb_mark "$WORK/holds")" \
	"$(gdb_wait_file "$WORK/never")"
wait_until test -e "$WORK/holds" || bail "gdb did not attach: $(cat "$WORK/gdb.out")"
ok 'gdb holds the process' eval '[[ $(pid_state $P) == t ]]'
kill -TERM "$SERVER_PID"
ok 'SIGTERM: the daemon exits' server_exits
is "$EXIT_STATUS" 0 '... with status 0'
ok '... unmounted' eval '! mounted "$MNT2"'
ok '... and the process runs on, traced by nobody' wait_until traced_by_nobody "$P"
touch "$WORK/never"
ok 'gdb, cut off, ends' wait_exit "$GDB_PID"
like "$(tail -3 "$WORK/threads.out")" '^tick ' 'the program still ticks'
unlike "$(cat "$WORK/threads.out")" 'EINTR|BACKWARDS' 'no EINTR, no counter going back'

done_testing
