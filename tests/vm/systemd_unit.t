#!/bin/bash
# systemd_unit.t: the packaged unit (dist/utraced.service), live, in the
# guest of `make check-vm` booted with systemd as PID 1
# (tests/vm/guest_systemd.sh; never on a host: it installs a package and
# starts services). DEB is the .deb the host built: installed with dpkg,
# the service started, gdb sessions through its tree (/run/utraced/proc)
# as root on 64- and 32-bit programs and as another user on that user's
# program, stopped (the programs run on, untraced). Then each sandboxing
# setting of systemd.exec(5) that the unit leaves out, or keeps, is tried
# one by one in a drop-in: its verdict (the sessions work, or where they
# break) must be the one written below, which is what the unit's comments
# say.
. "$(dirname "$0")/../lib/e2e.sh"

MNT=/run/utraced/proc
DROPIN=/run/systemd/system/utraced.service.d
NOBODY=65534

# start_prog VAR PROG [UID]: PROG (demo_reader) started, as UID, waiting in
# read() for its second line; its pid in VAR, its stdin WORK/VAR.in.
start_prog() {
	local var=$1 prog=$2 fifo=$WORK/$1.in pid
	local as=()
	[[ -n ${3:-} ]] && as=(setpriv --reuid="$3" --regid="$3" --clear-groups)
	mkfifo "$fifo"
	setsid "${as[@]}" "$prog" <"$fifo" >"$WORK/$var.out" 2>&1 &
	pid=$!
	track "$pid"
	sleep infinity >"$fifo" &
	track $!
	echo hello >"$fifo"
	wait_until grep -q 'got: hello' "$WORK/$var.out" || bail "$prog did not answer"
	printf -v "$var" %s "$pid"
}

# session PID PROG [UID]: gdb (as UID) through MNT/PID/gdb: bt and a global.
session() {
	local as=()
	[[ -n ${3:-} ]] && as=(setpriv --reuid="$3" --regid="$3" --clear-groups)
	GDB_OUT=$(timeout -k 5 "$E2E_WAIT" "${as[@]}" gdb -nx -batch -ex "target remote $MNT/$1/gdb" \
		-ex bt -ex 'print lines_seen' -ex detach "$2" </dev/null 2>&1)
	[[ $GDB_OUT =~ in\ read_line\ \( && $GDB_OUT =~ \$1\ =\ [0-9] ]]
}

# mounted_inside: the tree is mounted in the service's mount namespace.
mounted_inside() {
	local pid
	pid=$(systemctl show -p MainPID --value utraced)
	((pid)) && nsenter -t "$pid" -m mountpoint -q "$MNT"
}

# sessions: the three sessions; prints where they break, if they do.
sessions() {
	E2E_WAIT=20 wait_until eval 'mountpoint -q $MNT || mounted_inside'
	if ! mountpoint -q "$MNT"; then
		if mounted_inside; then
			echo "the tree is mounted in the service's mount namespace only"
		else
			echo "the tree is not mounted (service: $(systemctl is-active utraced))"
		fi
	elif ! session "$P64" "$INF64/demo_reader"; then
		echo "root, 64-bit: $(tail -1 <<<"$GDB_OUT")"
	elif ! session "$P32" "$INF32/demo_reader"; then
		echo "root, 32-bit: $(tail -1 <<<"$GDB_OUT")"
	elif ! session "$PU" "$INF64/demo_reader" "$NOBODY"; then
		echo "another user: $(tail -1 <<<"$GDB_OUT")"
	fi
}

# traced_by_nobody PID: PID runs, and nothing traces it.
traced_by_nobody() {
	pid_running "$1" && [[ $(tracer_of "$1") == 0 ]]
}

service_stop() {
	systemctl stop utraced
	systemctl reset-failed utraced 2>/dev/null
	wait_until eval '! mountpoint -q $MNT'
}

INF64=$TOP/build/inferiors INF32=$TOP/build/inferiors32
[[ $(cat /proc/1/comm) == systemd ]] || skip_all 'systemd is not PID 1 here'
[[ -f ${DEB:-} ]] || bail "no .deb (DEB=${DEB:-})"
modprobe fuse

# --- the package and its unit
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1
ok "dpkg -i $(basename "$DEB")" test $? = 0 || diag "$(cat "$WORK/dpkg.log")"
ok 'the unit in /lib/systemd/system' test -f /lib/systemd/system/utraced.service
# (the guest has no man: Documentation=man:utraced(1) cannot be checked)
is "$(systemd-analyze verify utraced.service 2>&1 | grep -v "Command 'man utraced(1)' failed")" '' \
	'systemd-analyze verify utraced.service: no complaint'
like "$(systemctl show utraced -p ExecStart)" 'path=/usr/bin/utraced ' 'ExecStart: the packaged binary'

start_prog P64 "$INF64/demo_reader"
start_prog P32 "$INF32/demo_reader"
start_prog PU "$INF64/demo_reader" "$NOBODY"

# --- the unit as shipped
ok 'systemctl start utraced' systemctl start utraced
is "$(systemctl is-active utraced)" active 'active'
ok 'the tree is mounted, seen from outside the service' wait_until mountpoint -q "$MNT"
ok 'gdb session, root, 64-bit program' session "$P64" "$INF64/demo_reader" || diag "$GDB_OUT"
ok 'gdb session, root, 32-bit program' session "$P32" "$INF32/demo_reader" || diag "$GDB_OUT"
ok 'gdb session, another user on its own program' session "$PU" "$INF64/demo_reader" "$NOBODY" ||
	diag "$GDB_OUT"
! session "$P64" "$INF64/demo_reader" "$NOBODY"
ok "another user on root's program: refused" test $? = 0 || diag "$GDB_OUT"
# a breakpoint hit through the service: the line fed while gdb holds the program
GDB_OUT=$(timeout -k 5 "$E2E_WAIT" gdb -nx -batch -ex "target remote $MNT/$P64/gdb" -ex 'break say' \
	-ex "shell echo world >$WORK/P64.in" -ex continue -ex 'print lines_seen' -ex detach \
	"$INF64/demo_reader" </dev/null 2>&1)
like "$GDB_OUT" '^Breakpoint 1, say \(s=0x[0-9a-f]+ "got: world\\n"\)' 'break say: hit through the service'
like "$GDB_OUT" '^\$1 = 2$' '... after the second line'
service_stop
is "$(systemctl is-active utraced)" inactive 'systemctl stop utraced: inactive'
ok 'the tree is unmounted' eval '! mountpoint -q $MNT'
for v in P64 P32 PU; do
	ok "$v runs on, traced by nobody" traced_by_nobody "${!v}"
done
echo again >"$WORK/P32.in"
ok 'the 32-bit program answers after the stop' wait_until grep -q 'got: again' "$WORK/P32.out"

# --- the sandboxing settings, one at a time over the shipped unit
# SETTING|VERDICT: "works", or the start of what sessions() says. (A trial
# takes 30 to 50 s under emulation: daemon-reload, start, sessions, stop.)
trials=(
	'ProtectClock=yes|works'
	'ProtectHostname=yes|works'
	'PrivateNetwork=yes|works'
	'IPAddressDeny=any|works'
	'RestrictAddressFamilies=AF_UNIX|works'
	'RemoveIPC=yes|works'
	'LockPersonality=yes|works'
	'MemoryDenyWriteExecute=yes|works'
	'SystemCallArchitectures=native|works'
	'SystemCallFilter=@system-service @debug @mount|works'
	'SystemCallFilter=~@clock @cpu-emulation @module @obsolete @raw-io @reboot @swap|works'
	'CapabilityBoundingSet=CAP_SYS_PTRACE CAP_SYS_ADMIN|works' # (not tried: ^C, sockets' owners)
	'SystemCallFilter=@system-service|the tree is not mounted'
	'PrivateDevices=yes|the tree is not mounted'
	'DevicePolicy=closed|the tree is not mounted'
	'PrivateUsers=yes|the tree is not mounted'
	'DynamicUser=yes|the tree is not mounted'
	'PrivateIPC=yes|the tree is mounted in the service'
	'PrivateTmp=yes|the tree is mounted in the service'
	'ProtectSystem=full|the tree is mounted in the service'
	'ProtectSystem=strict|the tree is mounted in the service'
	'ProtectHome=read-only|the tree is mounted in the service'
	'PrivateMounts=yes|the tree is mounted in the service'
	'ProtectKernelTunables=yes|the tree is mounted in the service'
	'ProtectKernelModules=yes|the tree is mounted in the service'
	'ProtectKernelLogs=yes|the tree is mounted in the service'
	'ProtectControlGroups=yes|the tree is mounted in the service'
	'ProtectProc=invisible|the tree is mounted in the service'
	'ProcSubset=pid|the tree is mounted in the service'
)
mkdir -p "$DROPIN"
for t in "${trials[@]}"; do
	setting=${t%|*} want=${t##*|}
	# (VM_TESTS: only the trials named systemd.trial.SETTING that match)
	[[ systemd.trial.$setting =~ ${VM_TESTS:-.} ]] || continue
	printf '[Service]\n%s\n' "$setting" >"$DROPIN/trial.conf"
	systemctl daemon-reload
	if ! systemctl start utraced 2>"$WORK/start.err"; then
		got="does not start: $(tail -1 "$WORK/start.err")"
	else
		got=$(sessions)
	fi
	service_stop
	if [[ -z $got ]]; then
		ok "$setting: works" test "$want" = works
	else
		ok "$setting: breaks ($got)" eval '[[ $got == "$want"* ]]'
	fi
	[[ $want == works && -z $got || $want != works && $got == "$want"* ]] ||
		diag "    expected: $want" "$(journalctl -u utraced -n 5 --no-pager 2>&1)"
done
rm -rf "$DROPIN"
systemctl daemon-reload

# --- removed cleanly
DEBIAN_FRONTEND=noninteractive dpkg --purge utraced >"$WORK/purge.log" 2>&1
ok 'dpkg --purge utraced' test $? = 0 || diag "$(cat "$WORK/purge.log")"
ok 'the unit is gone' test ! -e /lib/systemd/system/utraced.service
done_testing
