#!/bin/bash
# via-daemon.sh: ustrace through the daemon, for `STRACE_DAEMON=1 make
# check-strace`. Each -p PID is first held by a utraced of its own
# (utraced --attach), with a client in gdb's place on its port that has
# continued the process and lets every signal through (as a gdb after
# `handle all nostop noprint pass` and `continue &`): so that ustrace joins
# it through the daemon's rendezvous socket, beside a debugger, instead of
# tracing it itself. A process held but never continued by its debugger
# stays stopped (utraced keeps it for the debugger, as gdbserver does), and
# a ustrace joining it would see nothing. Then ustrace runs in this
# script's place (exec, under the name the script was run as), with the
# arguments given; the utraced processes started here end after it (they
# let their processes go). Without -p, ustrace runs as it is.
set -u
UTRACED=${UTRACED:-$(dirname "$0")/../../build/utraced}
USTRACE=${USTRACE:-$(dirname "$0")/../../build/ustrace}
RSPCLIENT=${RSPCLIENT:-$(dirname "$0")/../../build/tests/rspclient}
export UTRACED_RUNDIR
UTRACED_RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/via-daemon.XXXXXX")
daemons=()
clients=()
cleanup() {
	local i
	((${#clients[@]})) && kill "${clients[@]}" 2>/dev/null
	((${#daemons[@]})) && kill "${daemons[@]}" 2>/dev/null
	# their processes are let go when they end: the caller may look at once
	# (not our children once ustrace has taken our place: polled, not waited)
	for ((i = 0; i < 100; i++)); do
		kill -0 "${daemons[@]}" 2>/dev/null || break
		sleep 0.05
	done
	rm -rf "$UTRACED_RUNDIR"
}
# gdb's numbers of every signal, for QPassSignals
PASS_ALL="QPassSignals:$(printf '%x;' $(seq 1 150))"
PASS_ALL=${PASS_ALL%;}
trap cleanup EXIT

hold() { # PID: a utraced holding it, its rendezvous socket up, a client continuing it
	local i port err=$UTRACED_RUNDIR/$1.err
	"$UTRACED" --attach :0 "$1" </dev/null >/dev/null 2>"$err" &
	daemons+=($!)
	for ((i = 0; i < 200; i++)); do
		port=$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$err")
		[[ -n $port && -S $UTRACED_RUNDIR/$1.sock ]] && break
		kill -0 "${daemons[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	if [[ -z $port || ! -S $UTRACED_RUNDIR/$1.sock ]]; then
		echo "via-daemon.sh: utraced could not hold $1: $(cat "$err")" >&2
		return 1
	fi
	: >"$UTRACED_RUNDIR/$1.client"
	"$RSPCLIENT" -t 100000 ":$port" "$PASS_ALL" '?' --loop c </dev/null \
		>>"$UTRACED_RUNDIR/$1.client" 2>&1 &
	clients+=($!)
	for ((i = 0; i < 200; i++)); do # its "?" answered: the continue is next
		[[ $(wc -l <"$UTRACED_RUNDIR/$1.client") -ge 2 ]] && return 0
		sleep 0.02
	done
	echo "via-daemon.sh: no debugger client for $1: $(cat "$UTRACED_RUNDIR/$1.client")" >&2
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

if ((${#daemons[@]} == 0)); then # no -p: nothing to hold
	trap - EXIT
	rm -rf "$UTRACED_RUNDIR"
	exec -a "$0" "$USTRACE" "$@"
fi
# ustrace takes our place (our pid, our descriptors, the name we were run
# as, the signals sent to us); the utraced processes end once it has
trap - EXIT
(
	trap '' INT TERM HUP QUIT
	while kill -0 $$ 2>/dev/null; do sleep 0.05; done
	cleanup
) </dev/null >/dev/null 2>&1 &
exec -a "$0" "$USTRACE" "$@"
