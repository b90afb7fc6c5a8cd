#!/usr/bin/env bash
# bench/run.sh: utraced against gdbserver, side by side, same gdb commands.
#
#   bench/run.sh [CASE...]             time the cases (default: all), print a table
#   bench/run.sh --packets [CASE...]   count the packets gdb sends to each server
#   bench/run.sh --perf CASE [SERVER]  perf record the server (utraced|gdbserver)
#   bench/run.sh --strace CASE [SERVER] strace -c the server's own system calls
#
# Cases (docs/performance.md says what each measures):
#   start  connect, run to a breakpoint in main, kill: the fixed cost in all
#   a      BENCH_HITS (5000) breakpoint hits: break + ignore N-1 + continue
#   b      BENCH_STEPS (5000) single steps: stepi N
#   c      dump binary memory of BENCH_MEM_MIB (64) MiB
#   d0     BENCH_THREADS (500) threads started, stop once all exist, kill
#   d      as d0, then `info threads` BENCH_INFO_REPS (5) times; d - d0 is
#          the cost of those `info threads`
#
# Transport: TCP on loopback for both servers (SERVER --once 127.0.0.1:PORT
# PROG; gdb: target remote 127.0.0.1:PORT). Not stdio: gdb's pipe transport
# polls the pipe's stderr on every byte it reads, which costs far more than
# either server does and hides the difference (see docs/performance.md).
#
# Each repetition runs every case on both servers, the order of the two
# alternating between repetitions; the table shows medians. A time is the
# gdb session's wall time (gdb start to server exit; the server has already
# started PROG and is listening). "cpu" is the server's user+sys time,
# including PROG's (it is the server's child), from /usr/bin/time if present.
#
# Environment: BENCH_REPS (3), BENCH_HITS, BENCH_STEPS, BENCH_MEM_MIB,
# BENCH_THREADS, BENCH_INFO_REPS, UTRACED (build/utraced), GDBSERVER
# (gdbserver in PATH), GDB (gdb).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build/bench
UTRACED=${UTRACED:-$ROOT/build/utraced}
GDBSERVER=${GDBSERVER:-$(command -v gdbserver || echo /usr/bin/gdbserver)}
GDB=${GDB:-gdb}
REPS=${BENCH_REPS:-3}
HITS=${BENCH_HITS:-5000}
STEPS=${BENCH_STEPS:-5000}
MEM_MIB=${BENCH_MEM_MIB:-64}
THREADS=${BENCH_THREADS:-500}
INFO_REPS=${BENCH_INFO_REPS:-5}
ALL_CASES="start a b c d0 d"
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || TIME_BIN=

die() { echo "bench: $*" >&2; exit 1; }

# ---------------------------------------------------------------- setup

build_progs() {
	mkdir -p "$B/out"
	for src in "$ROOT"/bench/*.c; do
		local exe=$B/$(basename "$src" .c)
		if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ]; then
			gcc -std=gnu11 -g -O0 -pthread -Wall -Wextra -o "$exe" "$src" || die "cannot build $src"
		fi
	done
}

check_tools() {
	[ -x "$UTRACED" ] || die "no $UTRACED (run make)"
	[ -x "$GDBSERVER" ] || die "no gdbserver ($GDBSERVER); apt-get install gdbserver"
	command -v "$GDB" >/dev/null || die "no gdb; apt-get install gdb"
	command -v ss >/dev/null || die "no ss; apt-get install iproute2"
}

server_path() {
	case $1 in
	utraced) echo "$UTRACED" ;;
	gdbserver) echo "$GDBSERVER" ;;
	*) die "server must be utraced or gdbserver, not $1" ;;
	esac
}

# ---------------------------------------------------------------- cases

# case_prog CASE: the program and its arguments
case_prog() {
	case $1 in
	start | a) echo "$B/bp_loop $HITS" ;;
	b) echo "$B/step_loop" ;;
	c) echo "$B/mem_dump $MEM_MIB" ;;
	d0 | d) echo "$B/many_threads $THREADS" ;;
	*) die "unknown case $1 (cases: $ALL_CASES)" ;;
	esac
}

# case_script CASE OUTFILE MARK: the gdb script; MARK is a line put between
# the setup and the measured part (`set debug remote 1` in --packets mode)
case_script() {
	local c=$1 out=$2 mark=$3
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		case $c in
		start)
			echo "break main"
			echo "continue"
			echo "$mark"
			echo "kill"
			;;
		a)
			echo "break hit"
			echo "$mark"
			echo "ignore 1 $((HITS - 1))"
			echo "continue"
			echo "print counter"
			echo "continue"
			;;
		b)
			echo "break start"
			echo "continue"
			echo "$mark"
			echo "stepi $STEPS"
			echo 'printf "final-pc=%#lx\n", $pc'
			echo "kill"
			;;
		c)
			echo "break ready"
			echo "continue"
			echo "$mark"
			echo "dump binary memory $B/out/dump.$4 buf buf+buf_len"
			echo "kill"
			;;
		d0)
			echo "break ready"
			echo "continue"
			echo "$mark"
			echo "kill"
			;;
		d)
			echo "break ready"
			echo "continue"
			echo "$mark"
			for ((i = 0; i < INFO_REPS; i++)); do echo "info threads"; done
			echo "kill"
			;;
		esac
	} >"$out"
}

# case_check CASE SERVER GDB_OUT SERVER_OUT: is the run what it claims?
case_check() {
	local c=$1 s=$2 gout=$3 sout=$4 n
	case $c in
	start) grep -q "Breakpoint 1, main" "$gout" ;;
	a) grep -qxF "\$1 = $((HITS - 1))" "$gout" && grep -q "hits=$HITS" "$sout" ;;
	b)
		grep -o 'final-pc=0x[0-9a-f]*' "$gout" >"$B/out/b.pc.$s"
		[ -s "$B/out/b.pc.$s" ]
		;;
	c)
		"$B/mem_dump" --check "$B/out/dump.$s" "$MEM_MIB"
		;;
	d0 | d)
		grep -q "Breakpoint 1, ready (n=$THREADS)" "$gout" || return 1
		[ "$c" = d0 ] && return 0
		n=$(grep -cE '^[* ] +[0-9]+ +Thread ' "$gout" || true)
		[ "$n" -eq $((INFO_REPS * (THREADS + 1))) ]
		;;
	esac
}

# ---------------------------------------------------------------- running

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		ss -ltnH "sport = :$p" | grep -q . || { echo $p; return; }
	done
}

# wait_listen PORT PID: until PID listens on PORT (or dies)
wait_listen() {
	local i
	for ((i = 0; i < 1000; i++)); do
		ss -ltnH "sport = :$1" | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# wait_gone PID: wait for our server to exit, killing it after 30 s
wait_gone() {
	local i
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.01
	done
	kill -0 "$1" 2>/dev/null && { echo "bench: server $1 hung; killing it" >&2; kill -9 "$1"; }
	wait "$1" 2>/dev/null || true
}

# run_one CASE SERVER MODE: one gdb session. MODE: time|packets|perf|strace.
# Sets RUN_SECS and RUN_CPU; the logs stay in $B/out/CASE.SERVER.*.
run_one() {
	local c=$1 s=$2 mode=$3 srv port spid t0 t1 mark=""
	local pfx=$B/out/$c.$s
	local -a wrap=() prog
	srv=$(server_path "$s")
	read -r -a prog <<<"$(case_prog "$c")"
	case $mode in
	time) [ -n "$TIME_BIN" ] && wrap=("$TIME_BIN" -f "%U %S" -o "$pfx.cpu") ;;
	packets) mark="set debug remote 1" ;;
	perf) wrap=(perf record -g -o "$pfx.perf.data" --) ;;
	strace) wrap=(strace -c -o "$pfx.strace") ;;
	esac
	case_script "$c" "$pfx.gdb" "$mark" "$s"
	rm -f "$B/out/dump.$s" "$pfx.cpu"
	port=$(free_port)
	"${wrap[@]}" "$srv" --once "127.0.0.1:$port" "${prog[@]}" >"$pfx.server" 2>&1 </dev/null &
	spid=$!
	wait_listen "$port" "$spid" || die "$s did not listen on $port (see $pfx.server)"
	t0=$(date +%s.%N)
	timeout 600 "$GDB" -batch -nx -ex "target remote 127.0.0.1:$port" -x "$pfx.gdb" \
		>"$pfx.gdbout" 2>&1 </dev/null || true
	wait_gone "$spid"
	t1=$(date +%s.%N)
	RUN_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	RUN_CPU=-
	[ -s "$pfx.cpu" ] && RUN_CPU=$(awk 'NF == 2 { printf "%.3f", $1 + $2 }' "$pfx.cpu" | tail -1)
	[ -n "$RUN_CPU" ] || RUN_CPU=-
	case_check "$c" "$s" "$pfx.gdbout" "$pfx.server" ||
		die "case $c on $s did not do what it should; see $pfx.gdbout and $pfx.server"
}

median() { # numbers on stdin -> median ("-" if none)
	sort -g | awk '$1 != "-" { v[n++] = $1 }
		END { if (!n) print "-"; else if (n % 2) printf "%.3f\n", v[int(n / 2)];
		      else printf "%.3f\n", (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }

sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.3f", a - b }'; }

header() {
	echo "# utraced vs gdbserver: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)"
	echo "# $("$GDB" --version | head -1); $("$GDBSERVER" --version | head -1)"
	echo "# transport: TCP loopback; reps: $REPS (median); hits=$HITS steps=$STEPS mem=${MEM_MIB}MiB threads=$THREADS info-threads=$INFO_REPS"
}

do_time() {
	local cases=("$@") c s r order
	local raw=$B/out/raw.txt
	header | tee "$raw"
	for ((r = 1; r <= REPS; r++)); do
		if ((r % 2)); then order="utraced gdbserver"; else order="gdbserver utraced"; fi
		for c in "${cases[@]}"; do
			for s in $order; do
				run_one "$c" "$s" time
				echo "$r $c $s $RUN_SECS $RUN_CPU" >>"$raw"
				printf '  rep %d %-5s %-9s %7ss  cpu %ss\n' "$r" "$c" "$s" "$RUN_SECS" "$RUN_CPU" >&2
			done
		done
	done
	if [ -s "$B/out/b.pc.utraced" ] && [ -s "$B/out/b.pc.gdbserver" ]; then
		cmp -s "$B/out/b.pc.utraced" "$B/out/b.pc.gdbserver" ||
			echo "WARNING: stepi ended at different pcs: $(cat "$B/out/b.pc.utraced") vs $(cat "$B/out/b.pc.gdbserver")"
	fi
	echo
	printf '%-38s %10s %10s %7s %9s %9s\n' case "utraced s" "gdbsrv s" ratio "u cpu s" "g cpu s"
	declare -A med
	for c in "${cases[@]}"; do
		for s in utraced gdbserver; do
			med[$c.$s]=$(awk -v c="$c" -v s="$s" '$2 == c && $3 == s { print $4 }' "$raw" | median)
			med[$c.$s.cpu]=$(awk -v c="$c" -v s="$s" '$2 == c && $3 == s { print $5 }' "$raw" | median)
		done
		printf '%-38s %10s %10s %7s %9s %9s\n' "$(case_title "$c")" "${med[$c.utraced]}" \
			"${med[$c.gdbserver]}" "$(ratio "${med[$c.utraced]}" "${med[$c.gdbserver]}")" \
			"${med[$c.utraced.cpu]}" "${med[$c.gdbserver.cpu]}"
	done
	if [ -n "${med[d.utraced]:-}" ] && [ -n "${med[d0.utraced]:-}" ]; then
		local du dg
		du=$(sub "${med[d.utraced]}" "${med[d0.utraced]}")
		dg=$(sub "${med[d.gdbserver]}" "${med[d0.gdbserver]}")
		printf '%-38s %10s %10s %7s\n' "d-d0: ${INFO_REPS}x info threads only" "$du" "$dg" "$(ratio "$du" "$dg")"
	fi
	echo "(raw samples: $raw)"
}

case_title() {
	case $1 in
	start) echo "start: connect, break main, kill" ;;
	a) echo "a: $HITS breakpoint hits" ;;
	b) echo "b: stepi $STEPS" ;;
	c) echo "c: dump $MEM_MIB MiB" ;;
	d0) echo "d0: $THREADS threads to ready, kill" ;;
	d) echo "d: d0 + ${INFO_REPS}x info threads" ;;
	esac
}

# Packet kinds: the name without its arguments (vCont;s and vCont;c apart).
packet_kinds() {
	grep -a -o 'Sending packet: \$[^#]*' "$1" | sed -E 's/^Sending packet: \$//;
		s/^(vCont;[a-zA-Z]).*/\1/; s/^(vFile:[a-z]+).*/\1/;
		s/^(qXfer:[a-z0-9-]+:[a-z]+).*/\1/; s/^(H[gc]).*/\1/;
		s/^(q[A-Z][A-Za-z]*|Q[A-Z][A-Za-z]*|v[A-Z][A-Za-z]*).*/\1/;
		s/^([a-zA-Z?]).*/\1/' | sort | uniq -c | sort -rn
}

do_packets() {
	local c s
	header
	echo "# packets gdb sends during the measured part of each case (set debug remote 1)"
	for c in "$@"; do
		for s in utraced gdbserver; do
			run_one "$c" "$s" packets
			local log=$B/out/$c.$s.gdbout
			echo
			echo "== $(case_title "$c") -- $s: $(grep -a -c 'Sending packet: ' "$log") packets" \
				"(log: $log)"
			packet_kinds "$log" | head -12 | awk '{ printf "   %7d %s\n", $1, $2 }'
		done
	done
}

do_profile() { # --perf|--strace CASE [SERVER]
	local tool=$1 c=${2:-} s=${3:-utraced} pfx
	[ -n "$c" ] || die "usage: bench/run.sh $tool CASE [utraced|gdbserver]"
	pfx=$B/out/$c.$s
	case $tool in
	--perf)
		command -v perf >/dev/null || die "no perf; apt-get install linux-perf"
		run_one "$c" "$s" perf
		echo "wall ${RUN_SECS}s; perf data: $pfx.perf.data"
		perf report -i "$pfx.perf.data" --stdio --no-children --percent-limit 1.5 2>/dev/null |
			grep -v '^$' | head -80
		;;
	--strace)
		command -v strace >/dev/null || die "no strace; apt-get install strace"
		run_one "$c" "$s" strace
		echo "wall ${RUN_SECS}s (under strace); $s's own system calls, not PROG's:"
		cat "$pfx.strace"
		;;
	esac
}

main() {
	check_tools
	build_progs
	case ${1:-} in
	--packets)
		shift
		[ $# -gt 0 ] || set -- $ALL_CASES
		do_packets "$@"
		;;
	--perf | --strace) do_profile "$@" ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
	-*) die "unknown option $1 (see --help)" ;;
	*)
		[ $# -gt 0 ] || set -- $ALL_CASES
		for c in "$@"; do case_prog "$c" >/dev/null; done
		do_time "$@"
		;;
	esac
}

main "$@"
