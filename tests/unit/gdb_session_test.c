/*
 * Unit tests for one RSP client's session (src/gdb/gdb_session.c) on the
 * fake kernel (tests/unit/gdb_world.h): bytes in, however they are split,
 * acks, no-ack mode, broken and overlong packets, unknown packets, the
 * dispatcher's -errno to "Enn", ^C while running and while stopped, and
 * the stop reply owed to a resume, a refused QCatchSyscalls list.
 */
#include <stdio.h>
#include <sys/syscall.h>

#include "gdb_world.h"
#include "tap.h"

#define LIT(s) s, sizeof(s) - 1

/*
 * Raw bytes from the client; what the session sent, as text: "+" and "-"
 * for acks, "$payload" for a packet, "%payload" for a notification.
 */
static const char *raw(struct gdb_session *s, const char *bytes, size_t n)
{
	static char text[8192];
	static struct rsp_conn c;
	size_t len = 0, off = 0;

	gdb_session_input(s, (const uint8_t *)bytes, n);
	rsp_client_init(&c);
	c.noack = true;
	text[0] = '\0';
	while (off < s->rsp.out.len) {
		struct rsp_event ev;
		const char *what = "";

		off += rsp_feed(&c, (const uint8_t *)s->rsp.out.data + off, s->rsp.out.len - off,
				&ev);
		if (ev.kind == RSP_EV_ACK)
			what = "+";
		else if (ev.kind == RSP_EV_NAK)
			what = "-";
		else if (ev.kind == RSP_EV_PACKET)
			what = c.notify ? "%" : "$";
		else
			continue;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%.*s", what,
					ev.kind == RSP_EV_PACKET ? (int)ev.len : 0,
					ev.kind == RSP_EV_PACKET ? ev.data : "");
		if (len >= sizeof(text))
			abort();
	}
	rsp_conn_free(&c);
	buf_reset(&s->rsp.out);
	return text;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_acks(void)
{
	struct gdb_session *s = gw_start();
	char split[64];

	diag("acks, broken packets, no-ack mode");
	s->rsp.noack = false;
	is_str(raw(s, LIT("$vCont?#49")), "+$vCont;c;C;s;S;t;r", "a good packet: '+', the reply");
	is_str(raw(s, LIT("$vCont?#00")), "-", "a bad checksum: '-', no reply");
	is_str(raw(s, LIT("$vCont?#zz")), "-", "a checksum that is no hex: '-'");
	is_str(raw(s, LIT("$vCo}")), "", "half a packet: nothing yet");
	is_str(raw(s, LIT("#49")), "-", "  a body ending in a lone '}': '-'");
	is_str(raw(s, LIT("noise+$vCont?#49")), "+$vCont;c;C;s;S;t;r",
	       "noise and an ack before a packet are skipped");
	is_str(raw(s, LIT("-")), "$vCont;c;C;s;S;t;r",
	       "a '-' from the client: the last reply again");
	is_str(raw(s, LIT("$vCo$vCont?#49")), "+$vCont;c;C;s;S;t;r",
	       "a '$' inside a packet starts it over");
	snprintf(split, sizeof(split), "$vCont?#49$vCont?#49");
	for (size_t i = 0; i + 1 < strlen(split); i++)
		raw(s, split + i, 1);
	is_str(raw(s, split + strlen(split) - 1, 1), "+$vCont;c;C;s;S;t;r",
	       "two packets a byte at a time: the second's ack and reply come at its end");
	is_str(raw(s, LIT("$vCont?#49$vCont?#49")), "+$vCont;c;C;s;S;t;r+$vCont;c;C;s;S;t;r",
	       "two packets in one read: both answered, in order");
	is_str(raw(s, LIT("$QStartNoAckMode#b0")), "+$OK", "QStartNoAckMode: acked, OK");
	is_str(raw(s, LIT("$vCont?#49")), "$vCont;c;C;s;S;t;r", "then no more acks");
	is_str(raw(s, LIT("$vCont?#00")), "", "and a broken packet is dropped silently");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_hostile_packets(void)
{
	static const struct gw_refusal hostile[] = {
		{"vMustReplyEmpty", "", "an unknown packet"},
		{"", "", "an empty packet"},
		{"m401000,zz", "E16", "m with a bad length"},
		{"Hgp3e7.3e7", "E03", "Hg of a thread not ours"},
	};
	static char big[RSP_MAX_PACKET + 64];
	struct gdb_session *s = gw_start();
	size_t n = 0;
	uint8_t sum = 0;

	diag("hostile packets: refused, the session goes on");
	big[n++] = '$';
	big[n++] = 'm';
	for (; n < RSP_MAX_PACKET + 8; n++) {
		big[n] = '0';
		sum += '0';
	}
	sum += 'm';
	n += (size_t)snprintf(big + n, sizeof(big) - n, "#%02x", sum);
	s->rsp.noack = false;
	is_str(raw(s, big, n), "-", "a packet past RSP_MAX_PACKET: '-', no reply");
	s->rsp.noack = true;
	gw_refused(s, hostile, sizeof(hostile) / sizeof(hostile[0]));
	is_str(gw_ask_len(s, "m\0\0\0", 4), "E16", "m with NULs for its address: E16");
	is_str(gw_ask_len(s, "?\0", 2), "", "'?' with a NUL after it: another packet, unknown");
	is_str(trace(), "", "  nothing resumed");
	ok(starts_with(gw_ask(s, "?"), "T02thread:4c4b40;"), "?: the session still answers");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_interrupt(void)
{
	struct gdb_session *s = gw_start();

	diag("^C");
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c: no reply yet");
	is_str(trace(), "c1 c2 c3", "  every thread runs");
	gdb_session_input(s, (const uint8_t *)"\x03", 1);
	is_str(trace(), "i1 i2 i3", "^C while running: every thread is interrupted");
	fw_input(s, "", 0);
	ok(starts_with(gw_replies(s), "T02thread:4c4b40;"), "  the stop reply: SIGINT");

	gdb_session_input(s, (const uint8_t *)"\x03", 1);
	is_str(gw_replies(s), "", "^C while stopped: nothing now");
	ok(starts_with(gw_ask(s, "vCont;c"), "T02thread:4c4b40;"),
	   "  the next resume stops at once: T02");
	is_str(trace(), "", "  and nothing ran");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_owed_reply(void)
{
	struct gdb_session *s = gw_start();

	diag("the stop reply a resume is owed");
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c: no reply yet");
	ok(s->waiting, "  the session waits for a stop");
	trace();
	ok(starts_with(gw_event(s, GW_INT3, 3, 0x40), "T05thread:4c4b42;"), "T3 traps: T05");
	ok(!s->waiting, "  the session waits no more");
	is_str(trace(), "i1 i2", "  the others are stopped for it");
	ok(s->have_last && s->last.tid == TID(3), "  the stop is the last one, for '?'");
	ok(starts_with(gw_ask(s, "?"), "T05thread:4c4b42;"), "?: the same stop");
	is_str(gw_ask(s, "k"), "", "k: no reply (gdb waits for none)");
	ok(s->killed && !s->engine, "  the session let the process go, killed");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_foreign(void)
{
	struct proc_caller me = {.tgid = 1, .uid = geteuid()}, other = {.tgid = 1, .uid = 4321};
	struct proc_caller root = {.tgid = 1, .uid = 0};
	struct gdb_session *s = gw_start();

	diag("who the client is");
	ok(!gdb_session_foreign(s), "a client over TCP, peer unknown: not foreign");
	gdb_session_set_peer(s, &me);
	ok(!gdb_session_foreign(s), "a peer of our own uid: not foreign");
	gdb_session_set_peer(s, &root);
	ok(!gdb_session_foreign(s), "root: not foreign");
	gdb_session_set_peer(s, &other);
	ok(geteuid() == 4321 || gdb_session_foreign(s), "another user: foreign");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

/*
 * QCatchSyscalls reads its whole list before it changes the session's: a
 * refused list leaves the one before, which is what the session gives the
 * next engine it takes (gdb_session_set_engine: a followed fork child, the
 * process of a new run).
 */
static void test_catch_refused(void)
{
	struct gdb_session *s = gw_start();
	char pkt[64], want[32];
	const char *r;

	snprintf(pkt, sizeof(pkt), "QCatchSyscalls:1;%x", __NR_getpid);
	is_str(gw_ask(s, pkt), "OK", "%s (getpid)", pkt);
	snprintf(pkt, sizeof(pkt), "QCatchSyscalls:1;%x;zz", __NR_exit);
	r = gw_ask(s, pkt);
	ok(r[0] == 'E', "%s refused: %s", pkt, r);
	gdb_session_set_engine(s, s->engine);
	gw_replies(s);
	trace();
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c");
	k_set_syscall_nr(1, __NR_exit);
	is_str(gw_event(s, GW_SYSCALL, 1, 0), "", "  exit not caught: the list before stands");
	k_set_syscall_nr(2, __NR_getpid);
	r = gw_event(s, GW_SYSCALL, 2, 0);
	snprintf(want, sizeof(want), ";syscall_entry:%x;", __NR_getpid);
	ok(starts_with(r, "T05thread:4c4b41;") && strstr(r, want), "  getpid caught in T2: %s", r);
	ok(gw_stop(s), "the fake kernel saw nothing wrong");
}

int main(void)
{
	test_acks();
	test_hostile_packets();
	test_interrupt();
	test_owed_reply();
	test_foreign();
	test_catch_refused();
	return done_testing();
}
