#!/bin/bash
# Malformed and hostile RSP input, sent with rspclient to a server that has
# launched breakloop.  Each case uses a connection of its own and ends with
# '?': every reply before it must be a refusal (E.., an empty packet or a
# NAK; --send also shows the ACK of a well-formed packet), and '?' must
# still get a stop reply.  At the end the program is
# still alive and is killed cleanly.
. "$(dirname "$0")/../lib/e2e.sh"

STOP='^[ST][0-9a-f]{2}'
REFUSAL='^(E[0-9a-fA-F]{2}|E\..*|[-+]|)$'

launch "$INFDIR/breakloop"

# refused NAME ITEM...: rspclient ITEM... '?', as described above.
refused() {
	local name=$1 last rest
	shift
	rsp "$@" '?'
	last=$(tail -n 1 "$RSP_FILE")
	rest=$(sed '$d' "$RSP_FILE")
	[[ $RSP_RC == 0 && $last =~ $STOP ]] && ! grep -Evq -- "$REFUSAL" <<<"$rest"
	_tap_result $? "$name" || diag "rspclient $* '?' (status $RSP_RC):" "$RSP_OUT"
}

# replies_like NAME REGEX PACKET...: each PACKET's reply matches REGEX.
replies_like() {
	local name=$1 re=$2
	shift 2
	rsp "$@"
	[[ $RSP_RC == 0 && $(wc -l <"$RSP_FILE") == $# ]] && ! grep -Evq -- "$re" "$RSP_FILE"
	_tap_result $? "$name" || diag "rspclient $* (status $RSP_RC):" "$RSP_OUT"
}

# --- framing
rsp --raw '$g#00' '?'
is "$(head -n 1 <<<"$RSP_OUT")" - 'bad checksum: NAK'
like "$(tail -n 1 <<<"$RSP_OUT")" "$STOP" 'bad checksum: the next packet is answered'
refused 'checksum not hex' --send '$g#zz'
refused "no '#': the packet runs into the next one" --send '$m0,4'
refused 'junk without a packet' --send '\x00\xff\xfe}*\x7f\x80abc\r\n+-+'
skip_if_gdbserver 'an empty packet ($#00) makes it close the connection' ||
	refused 'empty packet' --send '$#00'
refused '^C while stopped is ignored' --send '\x03'
skip_if_gdbserver 'crashes (heap overflow, SIGSEGV) on packets longer than its 18 KB buffer' ||
	refused 'overlong packet: 200 KB' --long qX 200000
# 3000 bytes of binary junk (the same every run), '#' left out so that no
# packet can end in it by chance, then a checksum that is not hex.
junk=$(awk 'BEGIN { srand(7); for (i = 0; i < 3000; i++) { c = int(rand() * 256);
	if (c != 35) printf "\\x%02x", c } }')
refused 'binary junk' --send "$junk#zz"

# --- bad hex
for p in 'mzz,4' 'm0,zz' 'm' 'Mzz,1:00' 'M0,2:zzzz' 'M0,1' 'Gzz' 'Pzz=00' 'P0=zz' \
	'Xzz,1:a' 'Z0,zz,1' 'z0,zz,1' 'pzz' 'Tzz' 'qRcmd,zz' 'QPassSignals:zz' 'vCont;c:zz'; do
	refused "bad hex: $p" "$p"
done
skip_if_gdbserver '"vKill;zz" kills the program (replies OK)' ||
	refused 'bad hex: vKill;zz' 'vKill;zz'

# --- huge lengths and addresses
for p in 'm0,ffffffffffffffff' 'mffffffffffffffff,ffffffffffffffff' 'm0,10000000' \
	'mffffffffffff0000,20' 'X0,ffffffffffffffff:'; do
	refused "huge: $p" "$p"
done
skip_if_gdbserver 'aborts on "M0,ffffffffffffffff:00" (uncaught std::length_error)' ||
	refused 'huge: M0,ffffffffffffffff:00' 'M0,ffffffffffffffff:00'

# --- unknown packets: an empty reply
replies_like 'unknown packets: empty replies' '^$' \
	qFooBar vFooBar 'QFooBar:1' 'Z9,0,0' j y vMustReplyEmpty 'qXfer:bogus:read::0,10'

# --- threads
replies_like 'g first on a new connection: registers or an error' '^([0-9a-fx]+|E[0-9a-fA-F]{2})$' g
replies_like 'H with bad or unknown threads: OK or an error' '^(OK|E[0-9a-fA-F]{2})$' \
	'Hgp999.999' 'Hgzz' 'Hg-1' 'Hc-1' 'Hg0'
rsp '?' 'Hgp999.999' g 'Hg0' g
regs=$(grep -Ec '^[0-9a-fx]{64,}$' <<<"$RSP_OUT")
is "$regs" 2 "g after '?' and a bad Hg, and after Hg0: the registers"

# --- after all that
rsp '?'
like "$RSP_OUT" "$STOP" "the server still answers '?'"
ok 'the program is still alive' pid_alive "$INFERIOR_PID"
rsp --nowait k --expect-close
is "$RSP_RC" 0 "k: the server closes the connection"
ok 'the server exits' server_exits
is "$EXIT_STATUS" 0 'with status 0'
ok 'the program is gone' wait_gone "$INFERIOR_PID"

done_testing
