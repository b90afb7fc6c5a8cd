# fuse.sh: helpers for the tests of `utraced --mount DIR` (tests/e2e/fuse_*.t),
# sourced after e2e.sh.
#
#	. "$(dirname "$0")/../lib/e2e.sh"
#	. "$(dirname "$0")/../lib/fuse.sh"
#	start_mount || bail "no mount"
#	remote_gdb "$PROG" ...          # TARGET=$MNT/<pid>/gdb: set it first
#
# A test skips as a whole (TAP "1..0 # SKIP") where FUSE cannot be used:
# no /dev/fuse, a utraced built without libfuse3, no right to mount (an
# unprivileged container), or gdbserver as SERVER. Whatever way the test
# ends, the mount goes before the scratch directory is removed.

MNT=$WORK/mnt

# mounted DIR: DIR is a mount point (live or stale) in our mount namespace.
mounted() {
	local dev mnt rest
	while read -r dev mnt rest; do
		[[ $mnt == "$1" ]] && return 0
	done </proc/self/mounts
	return 1
}

# fuse_unmount DIR: takes away a mount left on DIR (by a killed daemon).
fuse_unmount() {
	mounted "$1" || return 0
	umount -l "$1" 2>/dev/null || fusermount3 -u -z "$1" 2>/dev/null
}

_fuse_cleanup() {
	local entry pid
	# the daemons first (SIGTERM: they unmount), then whatever mount is left
	for entry in "${_pids[@]}"; do
		pid=${entry%%:*}
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == utraced ]] && kill -TERM "$pid" 2>/dev/null
	done
	wait_until eval '! mounted "$MNT"' 2>/dev/null || fuse_unmount "$MNT"
	_cleanup
}
trap _fuse_cleanup EXIT

# start_mount [DIR] [ARGS...]: runs "$SERVER --mount DIR ARGS..." (DIR
# defaults to $MNT) in the background and waits for "Mounted on DIR".
# Sets SERVER_PID, SERVER_OUT, SERVER_ERR as start_server does.  Skips the
# whole test when FUSE is not usable here; fails when the server does not
# mount for another reason.
start_mount() {
	local dir=$MNT
	[[ ${1:-} == /* ]] && dir=$1 && shift
	server_is_gdbserver && skip_all 'gdbserver has no --mount'
	[[ -c /dev/fuse ]] || skip_all 'no /dev/fuse'
	_nservers=$((_nservers + 1))
	SERVER_OUT=$WORK/server$_nservers.out
	SERVER_ERR=$WORK/server$_nservers.err
	"$SERVER" --mount "$dir" "$@" </dev/null >"$SERVER_OUT" 2>"$SERVER_ERR" &
	SERVER_PID=$!
	track "$SERVER_PID"
	wait_until eval 'file_has "$SERVER_ERR" "^Mounted on" || ! pid_alive $SERVER_PID'
	file_has "$SERVER_ERR" "^Mounted on" && return 0
	if file_has "$SERVER_ERR" 'built without libfuse3|fuse: device not found|fuse: failed to open|Operation not permitted|Permission denied'; then
		skip_all "FUSE not usable here: $(head -2 "$SERVER_ERR" | tr '\n' ' ')"
	fi
	diag "server did not mount: $SERVER --mount $dir $*" "stderr:" "$(cat "$SERVER_ERR")"
	return 1
}

# open_error PATH [MODE]: what opening PATH read-write (MODE "<" for
# read-only) says: "ok", or the error text ("Invalid argument", ...).  The
# file is closed at once (for a gdb file: its engine leaves).
open_error() {
	local out
	if [[ ${2:-<>} == "<" ]]; then
		out=$( (exec 3<"$1") 2>&1)
	else
		out=$( (exec 3<>"$1") 2>&1)
	fi
	[[ -z $out ]] && echo ok || echo "${out##*: }"
}

# engines_of PID: the text of $MNT/PID/engines.
engines_of() {
	cat "$MNT/$1/engines" 2>&1
}

# traced_by_nobody PID: PID runs, and nothing traces it.
traced_by_nobody() {
	pid_running "$1" && [[ $(tracer_of "$1") == 0 ]]
}
