#!/usr/bin/env bash
# bench/ustrace.sh: ustrace against strace, side by side in one run, on a
# program making BENCH_SYSCALLS (220000) system calls (bench/ustrace_loop.c:
# nine getppid and one write in each ten).
#
#   bench/ustrace.sh [MODE...]     MODEs (default all):
#                                  lstrace lustrace sstrace sustrace strace private gdb
#
# Launched (the issue's "full trace of a program making 220 000 syscalls"):
#   lstrace   strace -o FILE PROG N: the reference
#   lustrace  ustrace -o FILE PROG N
# Launched, --seccomp-bpf (strace 6.1 uses the filter only with -f):
#   sstrace   strace -f --seccomp-bpf -e trace=write -o FILE PROG N: the reference
#   sustrace  ustrace, the same options
# From outside (-p), released by a line on the program's stdin once the
# tracer is in place:
#   strace    strace -o FILE -p PID: the reference
#   private   ustrace -o FILE -p PID: ustrace's own engine, the program alone
#   gdb       the "full trace again with a gdb attached to the process":
#             utraced holds the program (--attach), gdb is connected and has
#             continued it, and ustrace -o FILE -p PID joins through the
#             rendezvous socket; the daemon decodes and streams the lines
#
# A launched run is timed from the tracer's start to its exit (the program
# gets its line at once); a -p run from the line to the tracer's exit
# (after the program's exit and the trace's last line written). Each
# repetition runs every mode, the order rotating; the table shows medians
# and the ratio to the mode's reference (<= 1.00: as fast or faster). Each
# run is checked: the program finished and the trace has every getppid
# line (every write line, and no getppid, with the filter).
#
# The machine may be busy: wall times then swing with the load. The cpu
# columns are steadier: "prog" is the program's own user+system time (a
# tracer's stops add kernel work to it), "tracer" that of the tracing
# side (strace; ustrace; utraced + ustrace; for launched modes it includes
# the program, the tracer's child), "gdb" that of the attached gdb; from
# /usr/bin/time and getrusage.
#
# Environment: BENCH_REPS (5), BENCH_SYSCALLS (220000), USTRACE
# (build/ustrace), UTRACED (build/utraced), STRACE (strace), GDB (gdb).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build/bench
OUT=$B/out/ustrace
USTRACE=${USTRACE:-$ROOT/build/ustrace}
UTRACED=${UTRACED:-$ROOT/build/utraced}
STRACE=${STRACE:-strace}
GDB=${GDB:-gdb}
REPS=${BENCH_REPS:-5}
N=${BENCH_SYSCALLS:-220000}
PROG=$B/ustrace_loop
ALL_MODES="lstrace lustrace sstrace sustrace strace private gdb"
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || TIME_BIN=

die() { echo "bench: $*" >&2; exit 1; }

setup() {
	[ -x "$USTRACE" ] && [ -x "$UTRACED" ] || die "no $USTRACE or $UTRACED (run make)"
	command -v "$STRACE" >/dev/null || die "no strace; apt-get install strace"
	command -v "$GDB" >/dev/null || die "no gdb; apt-get install gdb"
	mkdir -p "$OUT/run"
	if [ ! -x "$PROG" ] || [ "$ROOT/bench/ustrace_loop.c" -nt "$PROG" ]; then
		gcc -std=gnu11 -g -O0 -Wall -Wextra -o "$PROG" "$ROOT/bench/ustrace_loop.c" ||
			die "cannot build ustrace_loop"
	fi
	export UTRACED_RUNDIR=$OUT/run
}

# until CMD: retry CMD for at most 30 s
until_ok() {
	local i
	for ((i = 0; i < 3000; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	return 1
}

has() { grep -Eq -- "$2" "$1" 2>/dev/null; }
state_is() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = "$2" ]; }

# stop PID...: end what a failed run left
stop() {
	local p
	for p; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}

# timed NAME CMD...: CMD, its user+sys time into $OUT/NAME.cpu (if /usr/bin/time)
timed() {
	local name=$1
	shift
	if [ -n "$TIME_BIN" ]; then
		"$TIME_BIN" -f "%U %S" -o "$OUT/$name.cpu" "$@"
	else
		"$@"
	fi
}

cpu_of() { # NAME... -> the sum of their .cpu files, or "-"
	local f v=0 any=
	for f; do
		[ -s "$OUT/$f.cpu" ] || continue
		v=$(awk -v v="$v" 'NF == 2 && $1 ~ /^[0-9.]+$/ { v += $1 + $2 } END { print v }' "$OUT/$f.cpu")
		any=1
	done
	[ -n "$any" ] && echo "$v" || echo -
}

# run_one MODE: one traced run; sets RUN_SECS, RUN_PCPU, RUN_TCPU, RUN_GCPU
run_one() {
	local m=$1 fifo=$OUT/gate pid tr srv="" gdbp="" port hold t0 t1
	rm -f "$fifo" "$OUT/$m.trace" "$OUT"/*.cpu
	mkfifo "$fifo"
	"$PROG" "$N" <"$fifo" >"$OUT/$m.prog" 2>&1 &
	pid=$!
	exec {hold}>"$fifo" # the program's stdin stays open until we send the line
	case $m in
	lstrace | lustrace | sstrace | sustrace)
		exec {hold}>&-
		rm -f "$fifo"
		run_launched "$m"
		return
		;;
	strace)
		timed tracer "$STRACE" -o "$OUT/$m.trace" -p "$pid" 2>"$OUT/$m.err" &
		tr=$!
		until_ok has "$OUT/$m.err" "Process $pid attached" || { stop $pid $tr; die "strace did not attach"; }
		;;
	private)
		timed tracer "$USTRACE" -o "$OUT/$m.trace" -p "$pid" 2>"$OUT/$m.err" &
		tr=$!
		until_ok has "$OUT/$m.err" "Process $pid attached" || { stop $pid $tr; die "ustrace did not attach"; }
		;;
	gdb)
		timed daemon "$UTRACED" --once --attach :0 "$pid" >"$OUT/$m.server" 2>&1 &
		srv=$!
		until_ok has "$OUT/$m.server" '^Listening on port [0-9]+' || { stop $pid $srv; die "utraced did not listen"; }
		port=$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$OUT/$m.server" | head -1)
		timed gdb "$GDB" -batch -nx -ex "target remote 127.0.0.1:$port" -ex continue "$PROG" \
			>"$OUT/$m.gdb" 2>&1 </dev/null &
		gdbp=$!
		# gdb continued it: blocked in read() again
		until_ok state_is "$pid" S || { stop $pid $srv $gdbp; die "gdb did not continue the program"; }
		timed tracer "$USTRACE" -o "$OUT/$m.trace" -p "$pid" 2>"$OUT/$m.err" &
		tr=$!
		until_ok has "$OUT/$m.err" "Process $pid attached" || { stop $pid $srv $gdbp $tr; die "ustrace did not join"; }
		;;
	*) die "unknown mode $m (modes: $ALL_MODES)" ;;
	esac
	t0=$(date +%s.%N)
	echo go >&"$hold"
	exec {hold}>&-
	wait "$tr" || true
	t1=$(date +%s.%N)
	[ -n "$gdbp" ] && { wait "$gdbp" || true; }
	[ -n "$srv" ] && { wait "$srv" || true; }
	wait "$pid" || true
	RUN_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	RUN_PCPU=$(sed -n 's/^calls=[0-9]* cpu=//p' "$OUT/$m.prog")
	RUN_TCPU=$(cpu_of tracer daemon)
	RUN_GCPU=$(cpu_of gdb)
	grep -q "^calls=$N " "$OUT/$m.prog" || die "$m: the program did not finish (see $OUT/$m.*)"
	[ "$(grep -c '^getppid() ' "$OUT/$m.trace")" -eq $((N / 10 * 9)) ] ||
		die "$m: the trace misses getppid lines (see $OUT/$m.trace)"
	if [ "$m" = gdb ]; then
		grep -q 'exited normally' "$OUT/$m.gdb" || die "gdb did not see the exit (see $OUT/$m.gdb)"
	fi
}

# reference MODE: the mode its ratios are to
reference() {
	case $1 in
	lstrace | lustrace) echo lstrace ;;
	sstrace | sustrace) echo sstrace ;;
	*) echo strace ;;
	esac
}

# run_launched MODE: one launched run; sets RUN_SECS, RUN_PCPU, RUN_TCPU, RUN_GCPU
run_launched() {
	local m=$1 t0 t1 opts=() tracer=$STRACE want
	case $m in
	lustrace) tracer=$USTRACE ;;
	sstrace) opts=(-f --seccomp-bpf -e trace=write) ;;
	sustrace) tracer=$USTRACE opts=(-f --seccomp-bpf -e trace=write) ;;
	esac
	rm -f "$OUT/$m.trace" "$OUT"/*.cpu
	t0=$(date +%s.%N)
	timed tracer "$tracer" "${opts[@]}" -o "$OUT/$m.trace" "$PROG" "$N" <<<go >"$OUT/$m.prog" 2>"$OUT/$m.err" || true
	t1=$(date +%s.%N)
	RUN_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	RUN_PCPU=$(sed -n 's/^calls=[0-9]* cpu=//p' "$OUT/$m.prog")
	RUN_TCPU=$(cpu_of tracer)
	RUN_GCPU=-
	grep -q "^calls=$N " "$OUT/$m.prog" || die "$m: the program did not finish (see $OUT/$m.*)"
	if [ ${#opts[@]} -eq 0 ]; then
		[ "$(grep -Ec '^getppid\(\) ' "$OUT/$m.trace")" -eq $((N / 10 * 9)) ] ||
			die "$m: the trace misses getppid lines (see $OUT/$m.trace)"
	else
		want=$((N / 10 + 1)) # and the result line
		[ "$(grep -Ec '^[0-9]+ +write\(' "$OUT/$m.trace")" -eq $want ] ||
			die "$m: the trace does not have $want write lines (see $OUT/$m.trace)"
		! grep -q getppid "$OUT/$m.trace" || die "$m: getppid traced with -e trace=write"
	fi
}

median() {
	awk '$1 != "-"' | sort -g | awk '{ v[n++] = $1 } END { if (!n) print "-"; else if (n % 2) printf "%.3f\n", v[int(n / 2)];
		else printf "%.3f\n", (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# col MODE FIELD: median of that column of the raw samples
col() { awk -v m="$1" -v k="$2" '!/^#/ && $2 == m && $k != "-" { print $k }' "$RAW" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }

main() {
	local modes r i m s p t g
	[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
	setup
	read -r -a modes <<<"${*:-$ALL_MODES}"
	RAW=$OUT/raw.txt
	echo "# ustrace vs strace: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$RAW"
	echo "# $("$STRACE" -V | head -1); $("$GDB" --version | head -1); syscalls=$N reps=$REPS" | tee -a "$RAW"
	for ((r = 0; r < REPS; r++)); do
		for ((i = 0; i < ${#modes[@]}; i++)); do
			m=${modes[$(((i + r) % ${#modes[@]}))]}
			run_one "$m"
			echo "$r $m $RUN_SECS $RUN_PCPU $RUN_TCPU $RUN_GCPU" >>"$RAW"
			printf '  rep %d %-8s %7ss  cpu prog %ss tracer %ss gdb %ss\n' "$((r + 1))" "$m" \
				"$RUN_SECS" "$RUN_PCPU" "$RUN_TCPU" "$RUN_GCPU" >&2
		done
	done
	echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW"
	echo
	echo "Medians of $REPS; wall = launched: tracer start to exit; -p: from the program's"
	echo "start signal to the tracer's exit. cpu = user+sys of the program (prog), the"
	echo "tracing side (tracer; launched: with the program), gdb; ratios to the reference mode."
	printf '%-56s|%15s |%15s %16s |%6s\n' "" "wall s  ratio" "prog cpu ratio" "tracer cpu ratio" "gdb"
	for m in "${modes[@]}"; do
		local title ref
		case $m in
		lstrace) title="strace PROG (reference)" ;;
		lustrace) title="ustrace PROG" ;;
		sstrace) title="strace -f --seccomp-bpf -e write (reference)" ;;
		sustrace) title="ustrace -f --seccomp-bpf -e write" ;;
		strace) title="strace -p, the program alone (reference)" ;;
		private) title="ustrace -p, own engine, program alone" ;;
		gdb) title="ustrace -p via utraced, gdb attached" ;;
		esac
		ref=$(reference "$m")
		s=$(col "$m" 3) p=$(col "$m" 4) t=$(col "$m" 5) g=$(col "$m" 6)
		printf '%-56s|%8s %6s |%8s %6s %9s %6s |%6s\n' " $m: $title" \
			"$s" "$(ratio "$s" "$(col "$ref" 3)")" "$p" "$(ratio "$p" "$(col "$ref" 4)")" \
			"$t" "$(ratio "$t" "$(col "$ref" 5)")" "$g"
	done
	echo "(raw samples: $RAW: rep mode wall prog-cpu tracer-cpu gdb-cpu; logs: $OUT/MODE.*)"
}

main "$@"
