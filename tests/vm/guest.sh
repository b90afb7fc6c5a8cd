#!/bin/bash
# guest.sh OUT: runs inside the guest of `make check-vm` (tests/vm/run.sh),
# as root, from the project tree shared read-only at /mnt/tree. Builds
# utraced in a copy of the tree, then runs what the host's kernel cannot:
# the hardware watchpoint tests, the 32-bit (-m32) end-to-end set (on
# x86-64), each with utraced and with gdbserver, the out-of-line step-over
# on 32-bit programs (x86_xol_test's i386 forms executed, xol_*.t), and GDB's own watchpoint
# tests (tests/vm/gdbts.list) through ../shared/gdbts/run.sh when it is
# shared at /mnt/gdbts. Every test's TAP goes to OUT/tap/NAME.tap (its
# stderr beside it, its exit status in NAME.rc), for the host's prove.
# Nothing here names an architecture but the 32-bit set.
set -u
# Run from a copy: bash reads a script as it goes, and this one lives on the
# host's tree, which may change while the guest runs.
if [[ $0 != /root/guest.sh ]]; then
	cp "$0" /root/guest.sh && exec /bin/bash /root/guest.sh "$@"
fi
OUT=$1
TREE=${TREE:-/root/tree}
TAPS=$OUT/tap
mkdir -p "$TAPS" "$OUT/work"
say() { echo "guest: $(date -u +%T) $*"; }

# run_tap NAME CMD...: CMD's TAP in $TAPS/NAME.tap.
run_tap() {
	local name=$1 rc
	shift
	[[ $name =~ ${VM_TESTS:-.} ]] || return 0
	# a later boot of the same run (run.sh reboots a stuck guest): done already
	[[ -f $TAPS/$name.rc ]] && return 0
	"$@" >"$TAPS/$name.tap" 2>"$TAPS/$name.err"
	rc=$?
	echo "$rc" >"$TAPS/$name.rc"
	say "$name: exit $rc, $(grep -c '^not ok' "$TAPS/$name.tap") failed of $(grep -c '^ok\|^not ok' "$TAPS/$name.tap")"
}

# The guest's own facts, as tests: without them every test below would skip.
preflight() {
	local n=0 b=$TREE/build
	t() {
		n=$((n + 1))
		if "${@:2}" >/dev/null 2>&1; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
	}
	echo "# $(uname -srvm)"
	t "the debug registers trap (hw_watch_probe)" "$b/tests/hw_watch_probe"
	if [[ $COMPAT32 ]]; then
		t "the kernel runs 32-bit programs" "$TREE/tests/lib/kernel_runs.sh" "$b/inferiors32"
	fi
	t "gdb runs" gdb -nx -batch -ex 'show version'
	t "gdbserver runs" gdbserver --version
	echo "1..$n"
}

# What the kernel says of a CPU stuck for good (QEMU's software emulation).
STALL_RE='rcu: INFO|soft lockup|blocked for more than'

# The guest's kernel after the tests: a CPU stuck for good (seen once, a
# gdbserver test under QEMU's software emulation) would make later results
# meaningless.
health() {
	local bad
	bad=$(dmesg | grep -E "$STALL_RE|BUG:|Oops|hung_task")
	echo "1..1"
	[[ -z $bad ]] && echo "ok 1 - the guest's kernel reports no stall, BUG or oops" && return 0
	echo "not ok 1 - the guest's kernel reports no stall, BUG or oops"
	sed 's/^/# /' <<<"$bad" | head -20
	return 1
}

# e2e NAME INFDIR TEST...: the end-to-end TESTs against both servers
# (SERVERS: only those).
e2e() {
	local set=$1 infdir=$2 t server name
	shift 2
	for server in ${SERVERS:-$TREE/build/utraced /usr/bin/gdbserver}; do
		for t; do
			name=$set.$(basename "$server").$(basename "$t" .t)
			mkdir -p "/tmp/e2e/$name"
			run_tap "$name" env SERVER="$server" INFDIR="$infdir" E2E_WAIT=120 \
				E2E_KEEP=1 TMPDIR="/tmp/e2e/$name" bash "$t"
			# A failed test's scratch files (gdb's output among them) go
			# home; regular files only (QEMU's 9p refuses a FIFO, loudly).
			[[ $(cat "$TAPS/$name.rc" 2>/dev/null) == [1-9]* ]] &&
				(cd /tmp/e2e && find "$name" -type f -print0 | tar --null -T - -cf -) 2>/dev/null |
				tar -C "$OUT/work" -xf - 2>/dev/null
			rm -rf "/tmp/e2e/$name"
		done
	done
}

# gdbts_configured DIR: GDB's testsuite configured in DIR as in the first
# directory configured, kept in OUT/gdbts/configured for the next boots (its
# configure takes 5 minutes under TCG, loaded; its output names no directory
# of its own).
gdbts_configured() {
	local d keep=$OUT/gdbts/configured
	if [[ ! -f $keep/site.exp ]]; then
		for d in /root/gdbts/*/; do
			[[ -f $d/site.exp && ${d%/} != "$1" ]] || continue
			mkdir -p "$keep"
			(cd "$d" && cp -a site.exp Makefile config.status lib "$keep/") 2>/dev/null && break
		done
	fi
	[[ -f $1/site.exp || ! -f $keep/site.exp ]] && return 0
	(cd "$keep" && cp -a site.exp Makefile config.status lib "$1/")
}

# cpus_alive: every CPU of the guest runs a task within a minute (a CPU
# stuck for good under TCG runs nothing more, and does not even report its
# own stall: CPU 0 reports it, some time later).
cpus_alive() {
	local c p pids=() i
	for ((c = 0; c < $(nproc --all); c++)); do
		taskset -c "$c" true &
		pids+=($!)
	done
	for ((i = 0; i < 60; i++)); do
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && break
		done || return 0
		sleep 1
	done
	return 1
}

# gdbts BOARD...: GDB's watchpoint tests, one file at a time, with utraced
# then gdbserver on each BOARD. Under TCG a file now and then leaves a guest
# CPU stuck for good (docs/testing.md), and its results meaningless: after
# each run the guest checks its CPUs and its kernel's log; a stuck one ends
# the boot (OUT/gdbts/stalled, the run's gdb.sum kept as NAME.stuck.sum).
# OUT/gdbts/current names the run in progress, so that run.sh, which powers
# off a stuck guest, can record it in OUT/gdbts/stuck and boot again; this
# boot then goes on where the last one stopped, and gives up a file after
# GDBTS_TRIES stuck runs. Each run's gdb.sum and gdb.log land in
# OUT/gdbts/BOARD.SERVER/ under the file's name.
gdbts() {
	local board f server key dir home name tries=${GDBTS_TRIES:-2} stalls
	mkdir -p /root/gdbts "$OUT/gdbts"
	touch "$OUT/gdbts/stuck"
	for board; do
		[[ gdbts.$board =~ ${VM_TESTS:-.} ]] || continue
		while read -r f; do
			for server in "$TREE/build/utraced" /usr/bin/gdbserver; do
				key="$board $(basename "$server") $f"
				dir=/root/gdbts/$board.$(basename "$server")
				home=$OUT/gdbts/$board.$(basename "$server")
				name=${f//\//_}
				[[ -f $home/$name.sum ]] && continue
				(($(grep -cxF "$key" "$OUT/gdbts/stuck") >= tries)) && continue
				mkdir -p "$dir" "$home"
				gdbts_configured "$dir"
				echo "$f" >"$dir/one.list"
				echo "$key" >"$OUT/gdbts/current"
				sync
				stalls=$(dmesg | grep -cE "$STALL_RE")
				GDBTS_TIMEOUT=${GDBTS_TIMEOUT:-1800} /mnt/gdbts/run.sh "$server" "$board" \
					"$dir/one.list" "$dir" >"$dir/counts" 2>&1
				cp "$dir/gdb.log" "$home/$name.log" 2>/dev/null
				if ! cpus_alive || (($(dmesg | grep -cE "$STALL_RE") > stalls)); then
					# (before any output: the console's tty may be stuck too)
					cp "$dir/gdb.sum" "$home/$name.stuck.sum" 2>/dev/null
					dmesg >"$home/$name.stuck.dmesg"
					touch "$OUT/gdbts/stalled"
					sync
					say "gdbts: $key: a CPU is stuck; powering off"
					echo o >/proc/sysrq-trigger
					sleep infinity
				fi
				# (the .sum last: it says this run is done)
				cp "$dir/gdb.sum" "$home/$name.sum" 2>/dev/null || touch "$home/$name.sum"
				rm -f "$OUT/gdbts/current"
				sync
				say "gdbts: $key: $(grep -E '^# of (expected passes|unexpected failures)' \
					"$home/$name.sum" | tr -s '\t\n' '  ')"
			done
		done < <(grep -v "^#" "$TREE/${GDBTS_LIST:-tests/vm/gdbts.list}")
	done
}

# gdbts_compare BOARD...: TAP comparing the two servers' results.
gdbts_compare() {
	local board
	for board; do
		[[ gdbts.$board =~ ${VM_TESTS:-.} ]] || continue
		run_tap "gdbts.$board" bash "$TREE/tests/vm/gdbts_compare.sh" "$TREE/${GDBTS_LIST:-tests/vm/gdbts.list}" \
			"$OUT/gdbts/$board.gdbserver" "$OUT/gdbts/$board.utraced" "$OUT/gdbts/stuck" "$board"
	done
}

# run.sh's settings (VM_NO_GDBTS, VM_TESTS, GDBTS_*) come in a file.
[[ -f $OUT/guest.env ]] && . "$OUT/guest.env"
COMPAT32=
[[ $(uname -m) == x86_64 ]] && COMPAT32=1
say "copying the tree"
mkdir -p "$TREE"
tar -C /mnt/tree --exclude=./.git --exclude=./build/vm -cf - . | tar -C "$TREE" -xf -
cd "$TREE" || exit 1
say "building"
# The host built what it could (same architecture): make redoes only what is stale.
if ! make -j"$(nproc)" vm-build >"$OUT/build.log" 2>&1; then
	say "the build failed: see build.log"
	echo "1..1" >"$TAPS/build.tap"
	echo "not ok 1 - make vm-build in the guest" >>"$TAPS/build.tap"
	echo 1 >"$TAPS/build.rc"
	touch "$OUT/done"
	exit 1
fi
run_tap 00-preflight preflight
e2e e2e build/inferiors tests/e2e/hw_watch.t tests/e2e/launch_break.t
if [[ $COMPAT32 ]]; then
	# the out-of-line step-over's i386 relocation, executed (no skip here)
	# (under QEMU's software emulation an iret of the program oopses the
	# guest's kernel: x86_xol_test.c)
	skip=
	[[ ${VM_ACCEL:-} == tcg ]] && skip='^iret'
	run_tap m32.x86_xol_test env XOL32_REQUIRED=1 XOL_SKIP="$skip" build/tests/unit/x86_xol_test
	e2e m32 build/inferiors32 tests/e2e/hw_watch.t $(make -s --no-print-directory print-e2e32)
	# out of line on 32-bit programs: utraced's own, nothing to compare;
	# fewer calls (every one a stop, 10 to 20 times slower than the host;
	# hot_threads' 32-bit sum check overflows past 46340 calls a thread)
	(export ITERS=4000 KILL9_ITERS=40000 SERVERS=$TREE/build/utraced
	e2e m32 build/inferiors32 tests/e2e/xol_cond.t tests/e2e/xol_fork.t)
fi
boards=()
[[ -x /mnt/gdbts/run.sh && -z ${VM_NO_GDBTS:-} ]] && boards=(${GDBTS_BOARDS:-native-gdbserver native-extended-gdbserver})
run_tap zz-kernel health
if ((${#boards[@]})); then
	gdbts "${boards[@]}"
	gdbts_compare "${boards[@]}"
	run_tap zz-kernel.gdbts health
fi
say "done"
touch "$OUT/done"
