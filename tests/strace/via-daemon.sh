#!/bin/bash
# via-daemon.sh: ustrace through the daemon, for `STRACE_DAEMON=1 make
# check-strace`. Each -p PID is first held by a utraced of its own
# (utraced --attach, as when a gdb debugs it), so that ustrace joins it
# through the daemon's rendezvous socket instead of tracing it itself;
# then ustrace runs with the arguments given. Signals sent to this script
# go to ustrace; its exit status (or the signal it died of) is ours, and
# the utraced processes started here end with it.
set -u
UTRACED=${UTRACED:-$(dirname "$0")/../../build/utraced}
USTRACE=${USTRACE:-$(dirname "$0")/../../build/ustrace}
export UTRACED_RUNDIR
UTRACED_RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/via-daemon.XXXXXX")
daemons=()
cleanup() {
	((${#daemons[@]})) && kill "${daemons[@]}" 2>/dev/null
	rm -rf "$UTRACED_RUNDIR"
}
trap cleanup EXIT

hold() { # PID: a utraced holding it, its rendezvous socket up
	local i
	"$UTRACED" --attach :0 "$1" </dev/null >/dev/null 2>"$UTRACED_RUNDIR/$1.err" &
	daemons+=($!)
	for ((i = 0; i < 200; i++)); do
		[[ -S $UTRACED_RUNDIR/$1.sock ]] && return 0
		kill -0 "${daemons[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "via-daemon.sh: utraced could not hold $1: $(cat "$UTRACED_RUNDIR/$1.err")" >&2
	return 1
}

args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	pids=
	case ${args[i]} in
	-p) pids=${args[i + 1]:-} ;;
	-p*) pids=${args[i]#-p} ;;
	--attach=*) pids=${args[i]#--attach=} ;;
	--) break ;;
	-*) continue ;;
	*) [[ $i -gt 0 && ${args[i - 1]} == -[eoPsaIpXSU] ]] && continue; break ;;
	esac
	for pid in ${pids//,/ }; do
		hold "$pid" || exit 1
	done
done

"$USTRACE" "$@" &
child=$!
for sig in INT TERM HUP QUIT; do
	trap "kill -$sig $child 2>/dev/null" $sig
done
while :; do
	wait $child
	rc=$?
	kill -0 $child 2>/dev/null || break # not just a trapped signal ending the wait
done
cleanup
trap - EXIT
if ((rc > 128)); then # ustrace died of a signal: so do we
	trap - INT TERM HUP QUIT
	kill -$((rc - 128)) $$
fi
exit $rc
