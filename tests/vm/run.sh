#!/bin/bash
# run.sh [OUT]: `make check-vm`. Boots the Debian guest of tests/vm/image.sh
# under QEMU (KVM when /dev/kvm is there, software emulation otherwise) with
# the project tree shared read-only over 9p; the guest (tests/vm/guest.sh)
# builds and runs the tests this host's kernel may not run, and writes their
# TAP to OUT (default build/vm), shared read-write; prove then reports them
# here like any other test. The lane fails when the guest does not finish.
#
# VM_ACCEL (tcg or kvm: instead of the choice below), VM_CPUS (default: this host's), VM_MEM (MiB, default 4096), VM_TIMEOUT
# (seconds a boot may run, default 5400), VM_GDBTS=1 (GDB's watchpoint
# tests too, tests/vm/gdbts.list or GDBTS_LIST (a path in the tree);
# GDBTS_BOARDS, GDBTS_TIMEOUT a file,
# GDBTS_TRIES stuck runs of a file, VM_BOOTS), VM_TCG, VM_CPU (QEMU's
# software emulation: -accel tcg,VM_TCG -cpu VM_CPU), VM_TESTS (an extended regular expression: only the
# guest's tests whose names match run, e.g. 'preflight|hw_watch|zz'),
# GDBTS (default ../shared/gdbts: GDB's testsuite runner).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "${1:-$TOP/build/vm}")
GDBTS=${GDBTS:-$TOP/../shared/gdbts}
cd "$TOP"

need=()
arch=$(uname -m)
command -v "qemu-system-$arch" >/dev/null || need+=(qemu-system-x86)
command -v prove >/dev/null || need+=(perl)
if ((${#need[@]})); then
	"$(dirname "$0")/host_apt.sh" "${need[@]}"
fi
# (its last line: the directory; e2fsprogs 1.47's mkfs.ext4 -q still says
# "Creating regular file" on stdout)
img=$(tests/vm/image.sh | tail -1)
[[ -f $img/ready ]] || { echo "run.sh: no image ($img)" >&2; exit 1; }

case $arch in
x86_64) machine=(-machine q35) console=ttyS0 ;;
*) echo "run.sh: no guest for $arch yet" >&2; exit 1 ;;
esac
# KVM when it works (VM_ACCEL=tcg: never). A /dev/kvm may be there and
# not run our guest: a PVM host (kvm_pvm, "nested_pvm") runs only kernels
# built as PVM guests (Debian's hangs before its first message), and
# refuses the MSR of -cpu host's arch-capabilities (QEMU aborts); QEMU is
# asked first, paused (-S).
kvm_cpu() {
	local cpu
	[[ -w /dev/kvm && ${VM_ACCEL:-} != tcg ]] || return 1
	if [[ -d /sys/module/kvm_pvm && ${VM_ACCEL:-} != kvm ]]; then
		echo "run.sh: /dev/kvm is PVM's (kvm_pvm), which runs no stock kernel: software emulation" >&2
		return 1
	fi
	for cpu in host host,-arch-capabilities; do
		if echo quit | timeout 30 "qemu-system-$arch" -accel kvm -cpu "$cpu" "${machine[@]}" \
			-nodefaults -display none -monitor stdio -S >/dev/null 2>&1; then
			echo "$cpu"
			return 0
		fi
	done
	echo "run.sh: /dev/kvm is there but QEMU cannot use it: software emulation" >&2
	return 1
}
if cpu=$(kvm_cpu); then
	accel=(-accel kvm -cpu "$cpu")
else
	# (VM_TCG=thread=single, VM_CPU=...: tried against the stuck CPU, docs/testing.md)
	accel=(-accel "tcg,${VM_TCG:-thread=multi}" -cpu "${VM_CPU:-max}")
fi

# What the guest cannot build quickly under emulation is built here, where
# the architecture is the same; the guest's make redoes only what is stale.
make -s -j"$(nproc)" vm-build || echo "run.sh: the build failed here: the guest builds what is missing" >&2

rm -rf "$OUT"
mkdir -p "$OUT"
MON=$(mktemp -u /tmp/utraced-vm-mon.XXXXXX)
trap 'rm -f "$MON"' EXIT
{
	# GDB's tests wedge the guest under TCG now and then (docs/testing.md): asked for only.
	[[ -z ${VM_GDBTS:-} || -n ${VM_NO_GDBTS:-} ]] && echo "VM_NO_GDBTS=1"
	[[ -n ${GDBTS_TIMEOUT:-} ]] && echo "GDBTS_TIMEOUT=$GDBTS_TIMEOUT"
	[[ -n ${GDBTS_TRIES:-} ]] && echo "GDBTS_TRIES=$GDBTS_TRIES"
	[[ -n ${GDBTS_LIST:-} ]] && printf 'GDBTS_LIST=%q\n' "$GDBTS_LIST"
	[[ -n ${GDBTS_BOARDS:-} ]] && printf 'GDBTS_BOARDS=%q\n' "$GDBTS_BOARDS"
	[[ -n ${VM_TESTS:-} ]] && printf 'VM_TESTS=%q\n' "$VM_TESTS"
	echo "VM_ACCEL=${accel[1]%%,*}" # kvm or tcg: what the guest runs on
} >"$OUT/guest.env"
shares=(-virtfs "local,path=$TOP,mount_tag=tree,security_model=none,readonly=on"
	-virtfs "local,path=$OUT,mount_tag=out,security_model=none")
if [[ -x $GDBTS/run.sh ]]; then
	shares+=(-virtfs "local,path=$(realpath "$GDBTS"),mount_tag=gdbts,security_model=none,readonly=on")
else
	echo "run.sh: no $GDBTS/run.sh: GDB's watchpoint tests are left out" >&2
fi

# boot MODE INIT...: the guest, its kernel's command line ending in INIT;
# its console in OUT/console[.MODE].log. Fails when it does not say done.
boot() {
	local mode=$1 log start rc qemu
	shift
	log=$OUT/console${mode:+.$mode}.log
	start=$(date +%s)
	echo "run.sh: booting the guest${mode:+ ($mode)} ($img, ${accel[*]}); its console: $log"
	timeout -k 10 "${VM_TIMEOUT:-5400}" "qemu-system-$arch" -nodefaults -nographic -no-reboot \
		"${machine[@]}" "${accel[@]}" -smp "${VM_CPUS:-$(nproc)}" -m "${VM_MEM:-4096}" \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=$console panic=-1 quiet $*" \
		-drive "file=$img/root.img,format=raw,if=virtio,snapshot=on" \
		"${shares[@]}" -serial "file:$log" -monitor "unix:$MON,server=on,wait=off" &
	qemu=$!
	# The guest's progress lines, while it runs.
	tail -n +1 -F --pid=$qemu "$log" 2>/dev/null | grep --line-buffered -E '^(guest|utraced-vm):' &
	watchdog "$log" $qemu &
	wait $qemu && rc=0 || rc=$?
	sleep 1
	echo "run.sh: the guest${mode:+ ($mode)} ran $(($(date +%s) - start)) s (qemu exit $rc)"
	if [[ ! -f $OUT/done${mode:+.$mode} ]]; then
		echo "run.sh: the guest${mode:+ ($mode)} did not finish; its console:" >&2
		tail -30 "$log" >&2
		return 1
	fi
}

# watchdog LOG QEMU: ends a guest whose GDB test run left a CPU stuck (a
# CPU stuck for good under TCG): the guest says so (OUT/gdbts/stalled) when
# it can; else the kernel reports an RCU stall or a soft lockup on the
# console, or the run says nothing past its time limit. The next boot goes
# on without the run. Before, the CPUs' registers (QEMU's monitor) go to
# OUT/gdbts/ for a look at where they were.
watchdog() {
	local log=$1 qemu=$2 cur=$OUT/gdbts/current seen=0 base=0 mark= now
	local limit=$((${GDBTS_TIMEOUT:-1800} + 600))
	stalls() { grep -cE 'rcu: INFO: rcu_.*stall|soft lockup|blocked for more than' "$log" || true; }
	while kill -0 "$qemu" 2>/dev/null; do
		sleep 15
		[[ -f $cur ]] || continue
		now="$(stat -c %Y "$cur") $(cat "$cur")"
		if [[ -f $OUT/gdbts/stalled ]]; then
			echo "run.sh: the guest found a CPU stuck after: $(cat "$cur")"
		elif [[ $now != "$mark" ]]; then # a new run: stalls before it are not its own
			mark=$now base=$(stalls) seen=0
			continue
		elif (($(stalls) > base)); then
			# a minute more for the guest to come back by itself
			((seen++ < 4)) && continue
			echo "run.sh: a guest CPU is stuck during: $(cat "$cur")"
		elif (($(date +%s) - ${now%% *} > limit)); then
			echo "run.sh: no end in $limit s of: $(cat "$cur")"
		else
			continue
		fi
		monitor "info registers -a" >"$OUT/gdbts/registers.$(date +%s)" 2>&1
		echo "run.sh: powering the guest off"
		kill "$qemu"
		return
	done
}

# monitor CMD: QEMU's answer to a monitor command.
monitor() {
	python3 - "$MON" "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
s.sendall(sys.argv[2].encode() + b"\n")
out = b""
try:
	while True:
		d = s.recv(65536)
		if not d:
			break
		out += d
except socket.timeout:
	pass
sys.stdout.write(out.decode(errors="replace"))
PY
}

failed=0
# A boot whose GDB test run got stuck is ended by the watchdog; the next one
# goes on from there (tests/vm/guest.sh), the stuck run recorded.
for ((tries = 1; ; tries++)); do
	boot "" init=/sbin/utraced-vm-init && break
	if [[ ! -f $OUT/gdbts/current ]] || ((tries >= ${VM_BOOTS:-20})); then
		failed=1
		break
	fi
	cat "$OUT/gdbts/current" >>"$OUT/gdbts/stuck"
	rm -f "$OUT/gdbts/stalled"
	mv "$OUT/console.log" "$OUT/console.stuck$tries.log"
	rm -f "$OUT/gdbts/current"
	echo "run.sh: boot $((tries + 1)), after the stuck run: $(tail -1 "$OUT/gdbts/stuck")"
done
# The second boot: systemd as PID 1, the packaged unit tried live
# (tests/vm/systemd_unit.t), with the .deb built here.
if [[ systemd.unit =~ ${VM_TESTS:-.} ]]; then
	if tests/vm/host_deb.sh "$OUT/deb"; then
		boot systemd init=/lib/systemd/systemd systemd.unit=utraced-vm.target || failed=1
	else
		failed=1
	fi
fi
prove -e tests/vm/replay.sh "$OUT"/tap/*.tap && ((!failed))
