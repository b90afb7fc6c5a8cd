#!/bin/bash
# A client that is not utraced's own user (utraced runs as root for
# everybody) gets what that user may do, not what root may do.
#
# A program (sleep) of the user nobody is held by utraced (root); nobody joins it
# through the rendezvous socket: its vFile reads are checked as nobody's
# (/etc/shadow is refused, /etc/passwd is not), and so are the files its
# tsave -r (QTSave) writes; it may not start programs
# (vRun) nor attach to root's processes (vAttach 1), and root, through the
# same socket, still may read /etc/shadow.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'rendezvous sockets are utraced'"'"'s'

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ "$@"
}
if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null || ! getent passwd 65534 >/dev/null ||
	! as_nobody true 2>/dev/null; then
	skip_all 'needs root, setpriv and the user nobody (65534)'
fi

hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

use_rundir
chmod 755 "$WORK" "$UTRACED_RUNDIR"
# (not through the function: $! must be the program itself, not a subshell)
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 </dev/null >/dev/null 2>&1 &
PID=$!
track "$PID"
wait_until eval '[[ $(readlink /proc/$PID/exe) == */sleep ]]' || bail "sleep did not start"
start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"

OUT=$(as_nobody timeout -k 2 20 "$RSPCLIENT" "unix:$SOCK" \
	"vFile:open:$(hex /etc/shadow),0,0" "vFile:open:$(hex /etc/passwd),0,0" \
	"vRun;$(hex /bin/true)" 'vAttach;1' 2>&1)
mapfile -t R <<<"$OUT"
like "${R[0]}" '^F-1,d$' 'nobody: vFile:open of /etc/shadow is refused (EACCES)'
like "${R[1]}" '^F[0-9a-f]+$' 'nobody: vFile:open of /etc/passwd works'
like "${R[2]}" '^E' 'nobody: vRun is refused'
like "${R[3]}" '^E' "nobody: vAttach to root's pid 1 is refused"

# tsave -r (QTSave) writes as nobody too: not in root's directory, and a
# file it may write is nobody's
mkdir -m 700 "$WORK/rootonly"
mkdir -m 777 "$WORK/open"
OUT=$(as_nobody timeout -k 2 20 "$RSPCLIENT" "unix:$SOCK" QTinit \
	"QTSave:$(hex "$WORK/rootonly/t.tf")" "QTSave:$(hex "$WORK/open/t.tf")" 2>&1)
mapfile -t R <<<"$OUT"
is "${R[1]}" E0d "nobody: QTSave in root's directory is refused (EACCES)"
ok "nobody: ... and wrote nothing there" test ! -e "$WORK/rootonly/t.tf"
is "${R[2]}" OK 'nobody: QTSave where nobody may write works'
is "$(stat -c %u "$WORK/open/t.tf" 2>&1)" 65534 "nobody: ... and the file is nobody's"
like "$(head -c 7 "$WORK/open/t.tf" | tail -c 6)" '^TRACE0' '... a trace file'

OUT=$(timeout -k 2 20 "$RSPCLIENT" "unix:$SOCK" "vFile:open:$(hex /etc/shadow),0,0" 2>&1)
like "$OUT" '^F[0-9a-f]+$' 'root: vFile:open of /etc/shadow works'

ok 'the program is alive' pid_alive "$PID"
kill -TERM "$SERVER_PID"
ok 'the server exits' server_exits
ok 'the program runs on, untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
done_testing
