#!/bin/bash
# `utraced --mount DIR`: what may not be opened, and by whom; the mount's
# own life (a DIR with ':', a stale mount left by a killed daemon, a live
# one, SIGTERM with a session open).
#
#   DIR/<tid>/gdb of a thread, or of a kernel thread: EINVAL
#   opening DIR/<pid>/gdb stops nothing before a byte is written to it
#   (a `cat` or `grep -R` must not stop the process)
#   a process that is gone: ENOENT
# Other users (EACCES, listings, a gdb run as another user) are in
# fuse_users.t, with a user made for the test.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

start_mount || bail "utraced --mount did not start"

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

timeout 1 cat "$MNT/$P/gdb" >"$WORK/cat.out" 2>&1
is "$?:$(cat "$WORK/cat.out")" '124:' 'cat DIR/<pid>/gdb: reads nothing until killed'
ok '... and the process was not stopped' traced_by_nobody "$P"
is "$(open_error "$MNT/$P/engines" "<>")" 'Permission denied' 'engines opened for writing: EACCES'

sleep 0 &
GONE=$!
wait "$GONE"
is "$(open_error "$MNT/$GONE/gdb")" 'No such file or directory' 'a process that is gone: ENOENT'
is "$(open_error "$MNT/999999999/gdb")" 'No such file or directory' 'a pid that never was: ENOENT'
is "$(open_error "$MNT/$P/nothing" "<")" 'No such file or directory' 'no such file under DIR/<pid>: ENOENT'
is "$(open_error "$MNT/$P/nothing")" 'No such file or directory' '... nor can one be made: ENOENT, as in /proc'
is "$(open_error "$MNT/$P/gdb")" ok 'the process itself: opened and closed without a byte'
ok '... and it runs on, traced by nobody' wait_until traced_by_nobody "$P"

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
