#!/bin/bash
# kill_clients: kill -9 of a client at LOAD_KILLS random moments (default
# 100, see KILLS; `make check-load`, not `make check`). Two hot_threads processes (2
# threads calling work() without end) are held by one `utraced --multi`
# through a keeper client (vAttach of both, then c); each round starts one client
# on one of them, waits a random 0-1.5 s, and kills it with SIGKILL:
#   gdb-cond   gdb through the rendezvous socket, 'break work if i == -1'
#              evaluated by the target, continue (hits stepped over out of line)
#   gdb-step   gdb through the rendezvous socket, stops at work, stepi, stepi...
#   rsp-vfile  raw client: vFile:open of the program, vFile:pread in a loop
#   rsp-qxfer  raw client: qXfer threads, libraries-svr4, features in a loop
#   rsp-z0     raw client: ?, Z0 on work, vCont;c (holds the process), g, m
#   multi      the keeper killed, a raw client through the --multi port:
#              vAttach (an attach, or a join), m, g, Z0, c, s, c; then the
#              keeper attaches again
# Kills land during attach (a join), with breakpoints inserted, mid-step,
# mid-vFile, mid-qXfer. After each kill: the daemon is up, the target is
# alive and running (not in a tracing stop) and work()'s code in memory
# is the file's. At the end the keeper leaves: every target is untraced
# and runs on.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

KILLS=${LOAD_KILLS:-100} # 1000 asked; 6-8 s a kill here (2 shared cores): LOAD_KILLS=1000 takes 1.5-2.5 h
PROG=$INFDIR/hot_threads
use_rundir
RANDOM=${LOAD_SEED:-$$}
diag "seed ${LOAD_SEED:-$$}, $KILLS kills"

start_server --multi :0 || bail "utraced --multi did not start"
MULTI=$TARGET

WORK_ADDR=$((0x$(nm "$PROG" | awk '$3 == "work" { print $1 }')))
FILE_BYTES=$(elf_bytes "$PROG" "$WORK_ADDR" 32)
PATH_HEX=$(printf '%s' "$PROG" | od -An -tx1 -v | tr -d ' \n')

PIDS=() BIAS=()
for k in 0 1; do
	"$PROG" 2 1000000000000000 >"$WORK/p$k.out" 2>&1 &
	PIDS[k]=$!
	track "${PIDS[k]}"
	wait_until eval '[[ $(readlink /proc/${PIDS[k]}/exe) == *hot_threads ]]' || bail "hot_threads did not start"
done
sleep 0.3
for k in 0 1; do
	BIAS[k]=$(load_bias "${PIDS[k]}" "$PROG")
done

# keeper: the --multi port's one client (it takes one at a time): attaches
# both processes (a join if they are held already) and lets them run, so
# that the daemon holds them and their rendezvous sockets are there
keeper() {
	"$RSPCLIENT" -t 100000 "$MULTI" 'qSupported:multiprocess+' "vAttach;$(printf %x "${PIDS[0]}")" \
		"vAttach;$(printf %x "${PIDS[1]}")" 'vCont;c' >"$WORK/keeper.out" 2>&1 &
	KEEPER=$!
	track "$KEEPER"
	disown "$KEEPER"
	wait_until eval 'test -S "$(rendezvous_sock "${PIDS[0]}")" && test -S "$(rendezvous_sock "${PIDS[1]}")"' &&
		wait_until pid_running "${PIDS[0]}" && wait_until pid_running "${PIDS[1]}"
}
ok 'the keeper attaches both targets: rendezvous sockets there, targets running' keeper
is "$(mem_bytes "${PIDS[0]}" $((WORK_ADDR + BIAS[0])) 32)" "$FILE_BYTES" "work() in memory is the file's at the start"

mem_hex() { printf '%x' $((WORK_ADDR + BIAS[$1])); }

# client KIND K OUT: starts a client of KIND on target K in the background; CLIENT is its pid.
client() {
	local kind=$1 k=$2 out=$3 pid=${PIDS[$2]} sock addr items i
	sock=$(rendezvous_sock "$pid")
	addr=$(mem_hex "$k")
	items=()
	case $kind in
	gdb-cond)
		ex_args 'set breakpoint condition-evaluation target' "target remote $sock" \
			'break work if i == -1' continue
		"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$out" 2>&1 &
		;;
	gdb-step)
		local steps=()
		for ((i = 0; i < 300; i++)); do steps+=(stepi); done
		ex_args "target remote $sock" 'break work' continue delete "${steps[@]}"
		"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$out" 2>&1 &
		;;
	rsp-vfile)
		items=('vFile:setfs:0' "vFile:open:$PATH_HEX,0,0")
		for ((i = 0; i < 400; i++)); do items+=("vFile:pread:0,1000,$(printf %x $((i * 4096 % 65536)))"); done
		;;
	rsp-qxfer)
		items=('qSupported:multiprocess+;qRelocInsn+;xmlRegisters=i386')
		for ((i = 0; i < 150; i++)); do
			items+=('qXfer:threads:read::0,fff' 'qXfer:libraries-svr4:read::0,fff' 'qXfer:features:read:target.xml:0,fff')
		done
		;;
	rsp-z0)
		items=('?' "Z0,$addr,1" 'vCont;c' 'g' "m$addr,20")
		for ((i = 0; i < 100; i++)); do items+=('vCont;s' 'g'); done
		;;
	multi)
		# the keeper's place on the --multi port: kill it, a new client attaches
		kill -KILL "$KEEPER"
		wait_gone "$KEEPER"
		"$RSPCLIENT" -t 60 "$MULTI" 'qSupported:multiprocess+' "vAttach;$(printf %x "$pid")" \
			"m$addr,20" 'g' "Z0,$addr,1" 'vCont;c' 'g' 'vCont;s' 'vCont;c' >"$out" 2>&1 &
		;;
	esac
	if ((${#items[@]})); then
		"$RSPCLIENT" -t 60 "unix:$sock" "${items[@]}" >"$out" 2>&1 &
	fi
	CLIENT=$!
	track "$CLIENT"
	disown "$CLIENT"
}

text_is_file() { [[ $(mem_bytes "${PIDS[$1]}" $((WORK_ADDR + BIAS[$1])) 32) == "$FILE_BYTES" ]]; }
# a tracing stop may be seen for an instant (the keeper's engine steps
# over nothing, but a thread stops for the detach); it must not last
running_soon() { wait_until pid_running "${PIDS[$1]}"; }

KINDS=(gdb-cond gdb-step rsp-vfile rsp-qxfer rsp-z0 multi)
declare -A per_kind fails_kind
good=0 max_check_ms=0
first_fail=
t_start=$SECONDS
for ((n = 1; n <= KILLS; n++)); do
	kind=${KINDS[RANDOM % ${#KINDS[@]}]}
	k=$((RANDOM % 2))
	delay_ms=$((RANDOM % 1500))
	client "$kind" "$k" "$WORK/c.out"
	sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
	kill -KILL "$CLIENT" 2>/dev/null
	wait_gone "$CLIENT"
	t_kill=$(date +%s%N)
	per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
	why=
	pid_alive "$SERVER_PID" || why="daemon gone"
	[[ -z $why ]] && ! pid_alive "${PIDS[k]}" && why="target dead"
	[[ -z $why ]] && ! running_soon "$k" && why="target not running (state $(pid_state "${PIDS[k]}"))"
	[[ -z $why ]] && ! wait_until text_is_file "$k" && why="text differs: $(mem_bytes "${PIDS[k]}" $((WORK_ADDR + BIAS[k])) 32)"
	check_ms=$((($(date +%s%N) - t_kill) / 1000000))
	((check_ms > max_check_ms)) && max_check_ms=$check_ms
	if [[ $kind == multi ]] && ! keeper; then
		[[ -n $why ]] || why="the keeper could not attach again"
	fi
	if [[ -z $why ]]; then
		good=$((good + 1))
	else
		fails_kind[$kind]=$((${fails_kind[$kind]:-0} + 1))
		[[ -n $first_fail ]] || first_fail="kill $n ($kind on target $k after $delay_ms ms): $why"
		diag "kill $n ($kind on target $k after $delay_ms ms): $why" "client output:" "$(tail -5 "$WORK/c.out")"
		cp "$WORK/c.out" "$WORK/fail$n.out"
		pid_alive "$SERVER_PID" && pid_alive "${PIDS[0]}" && pid_alive "${PIDS[1]}" || break
	fi
	((n % 50)) || diag "$n kills, $good good, $((SECONDS - t_start)) s"
done
n=$((n > KILLS ? KILLS : n))
for kind in "${KINDS[@]}"; do
	diag "$kind: ${per_kind[$kind]:-0} kills, ${fails_kind[$kind]:-0} failed"
done
diag "$n kills in $((SECONDS - t_start)) s; longest wait for a target to run again with its text whole: $max_check_ms ms"
is "$good" "$KILLS" "every target alive, running, its text the file's: $good of $KILLS" ||
	diag "first failure: $first_fail"
ok 'the daemon is up' pid_alive "$SERVER_PID"

# the keeper leaves: each process untraced, running, its text the file's
kill -KILL "$KEEPER"
for k in 0 1; do
	ok "target $k: untraced once no client is left" wait_until eval '[[ $(tracer_of ${PIDS[k]}) == 0 ]]'
	ok "target $k: alive and running" wait_until pid_running "${PIDS[k]}"
	ok "target $k: work()'s text is the file's" text_is_file "$k"
	ok "target $k: no rendezvous socket left" wait_until eval '[[ ! -e $(rendezvous_sock ${PIDS[k]}) ]]'
done
unlike "$(cat "$WORK"/p*.out)" 'Trace|trap|Segmentation' 'no trace/trap message from the targets'

done_testing
