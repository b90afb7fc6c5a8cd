/*
 * Unit tests for the RSP codec (src/rsp/rsp_codec.c) and the hex helpers
 * (src/rsp/rsp_hex.c).
 *
 * Receive tests feed each input all at once and again split into chunks of
 * 1, 2, 3 and 5 bytes, and compare a log of the events and the bytes queued
 * in c->out. Send tests decode rsp_send()'s frames with a small independent
 * decoder that also checks the encoding rules.
 */
#include "rsp/rsp.h"
#include "rsp_conn.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Equal byte strings (memcmp() must not see the NULL data of an empty buf). */
static bool same(const void *a, size_t alen, const void *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* Append one event to log: "P:<payload>|", "%:<payload>|", "I|", "A|", "N|", "B|". */
static void log_event(struct buf *log, const struct rsp_conn *c, const struct rsp_event *ev)
{
	switch (ev->kind) {
	case RSP_EV_NONE:
		return;
	case RSP_EV_PACKET:
		buf_puts(log, c->notify ? "%:" : "P:");
		buf_append(log, ev->data, ev->len);
		if (ev->data[ev->len] != '\0')
			buf_puts(log, "<not NUL-terminated>");
		break;
	case RSP_EV_INTERRUPT:
		buf_putc(log, 'I');
		break;
	case RSP_EV_ACK:
		buf_putc(log, 'A');
		break;
	case RSP_EV_NAK:
		buf_putc(log, 'N');
		break;
	case RSP_EV_BAD:
		buf_putc(log, 'B');
		break;
	}
	buf_putc(log, '|');
}

/* Feed data in chunks of chunk bytes (0: all at once), logging every event. */
static void feed_log(struct rsp_conn *c, const void *data, size_t len, size_t chunk,
		     struct buf *log)
{
	const uint8_t *p = data;

	while (len) {
		size_t n = chunk && chunk < len ? chunk : len;
		size_t off = 0;

		while (off < n) {
			struct rsp_event ev;
			size_t used = rsp_feed(c, p + off, n - off, &ev);

			if (used == 0 || used > n - off) {
				buf_puts(log, "<bad consumed count>");
				return;
			}
			if (ev.kind == RSP_EV_NONE && used != n - off)
				buf_puts(log, "<NONE before end>");
			off += used;
			log_event(log, c, &ev);
		}
		p += n;
		len -= n;
	}
}

/*
 * Feed in to fresh connections, whole and split, and check the event log and
 * the bytes queued for the client.
 */
static void check_feed(const char *name, bool noack, const char *in, size_t inlen,
		       const char *want_log, size_t want_loglen, const char *want_out,
		       size_t want_outlen)
{
	static const size_t chunks[] = {0, 1, 2, 3, 5};
	struct buf log;
	bool split_ok = true;

	buf_init(&log);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct rsp_conn *c = new_conn(false, noack);

		buf_reset(&log);
		feed_log(c, in, inlen, chunks[i], &log);
		if (i == 0) {
			is_mem(log.data, log.len, want_log, want_loglen, "%s: events", name);
			is_mem(c->out.data, c->out.len, want_out, want_outlen, "%s: acks", name);
		} else if (!same(log.data, log.len, want_log, want_loglen) ||
			   !same(c->out.data, c->out.len, want_out, want_outlen)) {
			diag("%s: differs when fed %zu bytes at a time", name, chunks[i]);
			split_ok = false;
		}
		free_conn(c);
	}
	ok(split_ok, "%s: same result when split", name);
	buf_free(&log);
}

#define CHECK(name, in, log, out)	check_feed(name, false, LIT(in), LIT(log), LIT(out))
#define CHECK_NOACK(name, in, log, out) check_feed(name, true, LIT(in), LIT(log), LIT(out))

/* Frame body as a client would: "$body#cs", no escaping done here. */
static void client_frame(struct buf *b, const char *body, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += (uint8_t)body[i];
	buf_putc(b, '$');
	buf_append(b, body, len);
	buf_printf(b, "#%02x", sum);
}

static void test_good_packets(void)
{
	CHECK("single packet", "$g#67", "P:g|", "+");
	CHECK("empty packet", "$#00", "P:|", "+");
	CHECK("uppercase checksum", "$?#3F", "P:?|", "+");
	CHECK("two packets", "$g#67$m0,4#fd", "P:g|P:m0,4|", "++");
	CHECK("qSupported",
	      "$qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;"
	      "exec-events+;vContSupported+;QThreadEvents+;no-resumed+;xmlRegisters=i386#6a",
	      "P:qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;"
	      "exec-events+;vContSupported+;QThreadEvents+;no-resumed+;xmlRegisters=i386|",
	      "+");
	CHECK("notification-style start", "%Stop:T05#99", "%:Stop:T05|", "+");
	CHECK("'*' in a body is data", "$0* #7a", "P:0* |", "+");
}

static void test_acks_and_interrupts(void)
{
	CHECK("acks around a packet", "+$g#67+", "A|P:g|A|", "+");
	CHECK("nak with nothing sent", "-", "N|", "");
	CHECK("^C alone", "\x03", "I|", "");
	CHECK("^C between packets", "\x03$g#67\x03$?#3f\x03", "I|P:g|I|P:?|I|", "++");
	CHECK("garbage before '$'", "xyz\r\n0#12$g#67", "P:g|", "+");
	CHECK("^C inside a body is data", "$a\x03#64", "P:a\x03|", "+");
	CHECK("'%' inside a body is data", "$a%#86", "P:a%|", "+");
	CHECK("'+' and '-' inside a body are data", "$+-#58", "P:+-|", "+");
}

static void test_bad_packets(void)
{
	CHECK("bad checksum", "$g#68", "B|", "-");
	CHECK("bad checksum then good", "$g#68$g#67", "B|P:g|", "-+");
	CHECK("bad second checksum digit", "$g#6z$g#67", "B|P:g|", "-+");
	CHECK("bad first checksum digit", "$g#z7$g#67", "B|P:g|", "-+");
	CHECK("bad digit eats two chars", "$g#z-+", "B|A|", "-");
	CHECK("bad first digit is not taken as 0", "$\x07#z7", "B|", "-");
	CHECK("missing '#'", "$g", "", "");
	CHECK("missing checksum", "$g#", "", "");
	CHECK("missing second digit", "$g#6", "", "");
	CHECK("'$' restarts a packet", "$m0,4$g#67", "P:g|", "+");
	CHECK("'$' restarts after '#'", "$g#$g#67", "P:g|", "+");
	CHECK("'$' restarts after one digit", "$g#6$g#67", "P:g|", "+");
	CHECK("'%' restarted by '$'", "%abc$g#67", "P:g|", "+");
	CHECK("dangling escape", "$}#7d", "B|", "-");
	CHECK_NOACK("noack: good packet", "$g#67", "P:g|", "");
	CHECK_NOACK("noack: bad checksum", "$g#68$g#67", "B|P:g|", "");
	CHECK_NOACK("noack: nak", "-", "N|", "");
}

static void test_escapes(void)
{
	CHECK("escaped '#'", "$X0,1:}\x03#9f", "P:X0,1:#|", "+");
	CHECK("all four escapes", "$}\x03}\x04}]}\x0a#62", "P:#$}*|", "+");
	CHECK("escaped NUL",
	      "$a}\x20"
	      "b#60",
	      "P:a\0b|", "+");
}

static void test_overlong(void)
{
	size_t big = 100 * 1024;
	char *body = malloc(big);
	struct buf in, log;

	buf_init(&in);
	buf_init(&log);
	memset(body, 'a', big);

	client_frame(&in, body, big);
	buf_append(&in, LIT("$g#67"));
	check_feed("100 KB packet", false, in.data, in.len, LIT("B|P:g|"), LIT("-+"));
	check_feed("100 KB packet, noack", true, in.data, in.len, LIT("B|P:g|"), LIT(""));

	/* Exactly RSP_MAX_PACKET bytes fit; one more does not. */
	buf_reset(&in);
	client_frame(&in, body, RSP_MAX_PACKET);
	buf_reset(&log);
	buf_puts(&log, "P:");
	buf_append(&log, body, RSP_MAX_PACKET);
	buf_puts(&log, "|");
	check_feed("RSP_MAX_PACKET bytes", false, in.data, in.len, log.data, log.len, LIT("+"));

	buf_reset(&in);
	client_frame(&in, body, RSP_MAX_PACKET + 1);
	check_feed("RSP_MAX_PACKET + 1 bytes", false, in.data, in.len, LIT("B|"), LIT("-"));

	/* An escape pair counts as one byte. */
	memcpy(body + RSP_MAX_PACKET - 1, "}]", 2);
	buf_reset(&in);
	client_frame(&in, body, RSP_MAX_PACKET + 1);
	buf_reset(&log);
	buf_puts(&log, "P:");
	buf_append(&log, body, RSP_MAX_PACKET - 1);
	buf_puts(&log, "}|");
	check_feed("escape at the size limit", false, in.data, in.len, log.data, log.len, LIT("+"));

	/* Overlong with escapes everywhere still ends cleanly. */
	for (size_t i = 0; i + 1 < big; i += 2)
		memcpy(body + i, "}\x03", 2);
	buf_reset(&in);
	client_frame(&in, body, big);
	buf_append(&in, LIT("$g#67"));
	check_feed("100 KB of escapes", false, in.data, in.len, LIT("B|P:g|"), LIT("-+"));

	buf_free(&in);
	buf_free(&log);
	free(body);
}

static void test_noack_handshake(void)
{
	struct rsp_conn *c = new_conn(false, false);
	struct buf log;

	buf_init(&log);
	feed_log(c, LIT("$QStartNoAckMode#b0"), 0, &log);
	is_str(log.data, "P:QStartNoAckMode|", "QStartNoAckMode arrives as a packet");
	is_str(c->out.data, "+", "QStartNoAckMode is still acked");
	c->noack = true;
	rsp_send(c, LIT("OK"));
	is_str(c->out.data, "+$OK#9a", "reply framed without further acks");
	buf_reset(&c->out);
	buf_reset(&log);
	feed_log(c, LIT("$g#67$g#00-"), 0, &log);
	is_str(log.data, "P:g|B|N|", "noack events");
	is_int(c->out.len, 0, "noack: no acks, no retransmission");
	buf_free(&log);
	free_conn(c);
}

static void test_nak_retransmit(void)
{
	struct rsp_conn *c = new_conn(false, false);
	struct rsp_event ev;
	size_t n;

	rsp_send(c, LIT("OK"));
	is_str(c->out.data, "$OK#9a", "rsp_send OK");
	is_str(c->last.data, "$OK#9a", "last holds the frame");
	buf_reset(&c->out);
	n = rsp_feed(c, (const uint8_t *)"-", 1, &ev);
	is_int(n, 1, "nak consumed");
	is_int(ev.kind, RSP_EV_NAK, "nak event");
	is_str(c->out.data, "$OK#9a", "nak requeues the last packet");
	rsp_send_notify(c, LIT("Stop:T05"));
	is_str(c->out.data, "$OK#9a%Stop:T05#99", "notification framed with '%%'");
	is_str(c->last.data, "$OK#9a", "notification not saved for retransmission");
	buf_reset(&c->out);
	rsp_feed(c, (const uint8_t *)"-", 1, &ev);
	is_str(c->out.data, "$OK#9a", "nak after a notification resends the packet");
	rsp_send(c, LIT("E01"));
	buf_reset(&c->out);
	n = rsp_feed(c, (const uint8_t *)"+-", 2, &ev);
	is_int(n, 1, "one event per call");
	is_int(ev.kind, RSP_EV_ACK, "ack event returned first");
	is_int(c->out.len, 0, "ack queues nothing");
	rsp_feed(c, (const uint8_t *)"-", 1, &ev);
	is_str(c->out.data, "$E01#a6", "nak resends the newest packet");

	/* Once no-ack mode is on, a packet sent before it is not resent. */
	buf_reset(&c->out);
	c->noack = true;
	rsp_feed(c, (const uint8_t *)"-", 1, &ev);
	is_int(ev.kind, RSP_EV_NAK, "nak event in no-ack mode");
	is_int(c->out.len, 0, "no retransmission in no-ack mode");
	free_conn(c);
}

/*
 * Independent decoder for rsp_send() output. Checks framing, checksum
 * (lowercase), that the body has no raw '$' or '#', that repeat counts are
 * legal printable characters and only follow an unescaped literal byte.
 * Returns NULL and the payload in out, or the reason it failed.
 */
static const char *decode_frame(const char *f, size_t n, char start, struct buf *out)
{
	static const char lower[] = "0123456789abcdef";
	const char *hi, *lo;
	bool can_repeat = false;
	uint8_t sum = 0;
	size_t end;

	buf_reset(out);
	if (n < 4 || f[0] != start)
		return "bad start";
	end = n - 3;
	if (f[end] != '#')
		return "no '#' before checksum";
	for (size_t i = 1; i < end; i++)
		sum += (uint8_t)f[i];
	hi = f[end + 1] ? strchr(lower, f[end + 1]) : NULL;
	lo = f[end + 2] ? strchr(lower, f[end + 2]) : NULL;
	if (!hi || !lo)
		return "checksum not lowercase hex";
	if ((hi - lower) * 16 + (lo - lower) != sum)
		return "wrong checksum";
	for (size_t i = 1; i < end; i++) {
		uint8_t b = (uint8_t)f[i];

		if (b == '$' || b == '#')
			return "raw '$' or '#' in body";
		if (b == '}') {
			if (++i >= end)
				return "dangling escape";
			buf_putc(out, (char)(f[i] ^ 0x20));
			can_repeat = false;
			continue;
		}
		if (b == '*') {
			int count;

			if (!can_repeat)
				return "repeat of an escaped byte, a run or nothing";
			if (++i >= end)
				return "missing repeat count";
			count = (uint8_t)f[i] - 29;
			if (count < 3 || count > 97 || f[i] == '#' || f[i] == '$')
				return "illegal repeat count";
			while (count--)
				buf_putc(out, out->data[out->len - 1]);
			can_repeat = false;
			continue;
		}
		buf_putc(out, (char)b);
		can_repeat = true;
	}
	return NULL;
}

/* rsp_send payload and decode it; returns true if it round-trips. */
static bool send_roundtrip(struct rsp_conn *c, const void *payload, size_t len, bool notify,
			   struct buf *dec)
{
	const char *why;

	buf_reset(&c->out);
	if (notify)
		rsp_send_notify(c, payload, len);
	else
		rsp_send(c, payload, len);
	why = decode_frame(c->out.data, c->out.len, notify ? '%' : '$', dec);
	if (why) {
		diag("payload of %zu bytes: %s", len, why);
		return false;
	}
	if (!notify && !same(c->last.data, c->last.len, c->out.data, c->out.len)) {
		diag("payload of %zu bytes: last differs from out", len);
		return false;
	}
	if (!same(dec->data, dec->len, payload, len)) {
		diag("payload of %zu bytes: decoded differently", len);
		return false;
	}
	return true;
}

static void test_send_vectors(void)
{
	struct rsp_conn *c = new_conn(false, false);

	static const struct {
		const char *in, *out;
	} v[] = {
		{"", "$#00"},
		{"OK", "$OK#9a"},
		{"aaa", "$aaa#23"},
		{"0000", "$0* #7a"},
		{"00000", "$0*!#7b"},
		{"000000", "$0*\"#7c"},
		{"0000000", "$0*\"0#ac"},
		{"00000000", "$0*\"00#dc"},
		{"000000000", "$0*%#7f"},
		{"#$}*", "$}\x03}\x04}]}\x0a#62"},
		{"****", "$}\x0a}\x0a}\x0a}\x0a#1c"},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		buf_reset(&c->out);
		rsp_send(c, v[i].in, strlen(v[i].in));
		is_str(c->out.data, v[i].out, "rsp_send(\"%s\")", v[i].in);
	}
	free_conn(c);
}

static void test_send_runs(void)
{
	static const uint8_t bytes[] = {'#', '$', '*', '}',  '0',  'a',	 ' ',  '~',
					'%', '+', '-', 0x00, 0x03, 0x7f, 0x80, 0xff};
	struct rsp_conn *c = new_conn(false, false);
	uint8_t payload[210];
	struct buf dec;

	buf_init(&dec);
	for (size_t k = 0; k < sizeof(bytes); k++) {
		bool good = true;

		for (size_t run = 1; run <= 200; run++) {
			/* The bare run, and the run between different neighbours. */
			memset(payload, bytes[k], run);
			good &= send_roundtrip(c, payload, run, false, &dec);
			payload[0] = 'x';
			memset(payload + 1, bytes[k], run);
			payload[run + 1] = 'y';
			good &= send_roundtrip(c, payload, run + 2, false, &dec);
			good &= send_roundtrip(c, payload, run + 2, true, &dec);
		}
		ok(good, "runs of 1..200 bytes 0x%02x round-trip", bytes[k]);
	}

	memset(payload, 'a', 200);
	buf_reset(&c->out);
	rsp_send(c, payload, 200);
	ok(c->out.len < 16, "200 equal bytes compress (%zu bytes framed)", c->out.len);
	buf_free(&dec);
	free_conn(c);
}

static void test_send_random(void)
{
	static const uint8_t special[] = {'#', '$', '*', '}', 0x00, 0x03, 'a', 0xff};
	struct rsp_conn *c = new_conn(false, false);
	uint8_t *payload = malloc(2 * RSP_MAX_PACKET);
	bool good = true;
	struct buf dec;

	buf_init(&dec);
	for (int iter = 0; iter < 2000 && good; iter++) {
		size_t len = rng() % (iter < 1000 ? 300 : 2 * RSP_MAX_PACKET);

		for (size_t i = 0; i < len;) {
			size_t run = 1 + rng() % (rng() % 4 ? 3 : 150);
			uint8_t b = rng() % 2 ? special[rng() % sizeof(special)] : (uint8_t)rng();

			if (run > len - i)
				run = len - i;
			memset(payload + i, b, run);
			i += run;
		}
		good &= send_roundtrip(c, payload, len, iter % 7 == 0, &dec);
	}
	ok(good, "2000 random payloads round-trip");
	buf_free(&dec);
	free(payload);
	free_conn(c);
}

static void test_send_all_bytes(void)
{
	struct rsp_conn *tx = new_conn(false, false), *rx = new_conn(false, false);
	uint8_t payload[256 * 10];
	struct rsp_event ev;
	struct buf dec;
	size_t n;

	buf_init(&dec);
	for (int i = 0; i < 256; i++)
		payload[i] = (uint8_t)i;
	ok(send_roundtrip(tx, payload, 256, false, &dec), "all 256 byte values round-trip");

	/* Without runs, rsp_feed() must read back exactly what rsp_send() framed. */
	n = rsp_feed(rx, (const uint8_t *)tx->out.data, tx->out.len, &ev);
	is_int(n, tx->out.len, "receiver consumed the whole frame");
	is_int(ev.kind, RSP_EV_PACKET, "receiver got a packet");
	is_mem(ev.data, ev.len, payload, 256, "receiver got all 256 byte values");

	for (int i = 0; i < 256 * 10; i++)
		payload[i] = (uint8_t)(i / 10);
	ok(send_roundtrip(tx, payload, sizeof(payload), false, &dec),
	   "all 256 byte values repeated 10 times round-trip");
	buf_free(&dec);
	free_conn(tx);
	free_conn(rx);
}

static void test_hex(void)
{
	uint8_t out[4];
	uint64_t v;
	const char *s, *p;

	is_int(rsp_hex_digit('0'), 0, "hex digit '0'");
	is_int(rsp_hex_digit('9'), 9, "hex digit '9'");
	is_int(rsp_hex_digit('a'), 10, "hex digit 'a'");
	is_int(rsp_hex_digit('f'), 15, "hex digit 'f'");
	is_int(rsp_hex_digit('A'), 10, "hex digit 'A'");
	is_int(rsp_hex_digit('F'), 15, "hex digit 'F'");
	is_int(rsp_hex_digit('g'), -1, "hex digit 'g' is bad");
	is_int(rsp_hex_digit('/'), -1, "hex digit '/' is bad");
	is_int(rsp_hex_digit(':'), -1, "hex digit ':' is bad");
	is_int(rsp_hex_digit('@'), -1, "hex digit '@' is bad");
	is_int(rsp_hex_digit(0), -1, "hex digit NUL is bad");
	is_int(rsp_hex_digit(-1), -1, "hex digit EOF is bad");
	is_int(rsp_hex_digit((char)0xb0), -1, "hex digit of a negative char is bad");

	is_int(rsp_hex_decode("deadBEEF", 8, out, 4), 0, "hex decode");
	is_mem(out, 4, "\xde\xad\xbe\xef", 4, "hex decode bytes");
	is_int(rsp_hex_decode("0102030405", 10, out, 2), 0, "hex decode ignores the rest");
	is_mem(out, 2, "\x01\x02", 2, "hex decode prefix bytes");
	is_int(rsp_hex_decode("deadbee", 7, out, 4), -EINVAL, "hex decode short input");
	is_int(rsp_hex_decode("deadbeef", 8, out, (size_t)-1), -EINVAL, "hex decode huge n");
	is_int(rsp_hex_decode("de:dbeef", 8, out, 4), -EINVAL, "hex decode bad digit");
	is_int(rsp_hex_decode("dea", 3, out, 2), -EINVAL, "hex decode odd length");
	is_int(rsp_hex_decode("", 0, out, 0), 0, "hex decode nothing");

	s = "1f,rest";
	p = s;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == 0 && v == 0x1f && p == s + 2,
	   "parse hex stops at ','");
	s = "DeadBeef";
	p = s;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == 0 && v == 0xdeadbeef && p == s + 8,
	   "parse hex mixed case to the end");
	s = "12345";
	p = s;
	ok(rsp_parse_hex(&p, s + 2, &v) == 0 && v == 0x12 && p == s + 2, "parse hex honours end");
	s = ",1";
	p = s;
	v = 42;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == -EINVAL && p == s && v == 42,
	   "parse hex without digits fails, leaves p and out");
	s = "";
	p = s;
	ok(rsp_parse_hex(&p, s, &v) == -EINVAL && p == s, "parse hex of empty input fails");
	s = "ffffffffffffffff";
	p = s;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == 0 && v == UINT64_MAX && p == s + 16,
	   "parse hex of 16 digits");
	s = "10000000000000000";
	p = s;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == -EINVAL && p == s,
	   "parse hex of 17 digits fails");
	s = "0000000000000000000000000000ffffffffffffffff";
	p = s;
	ok(rsp_parse_hex(&p, s + strlen(s), &v) == 0 && v == UINT64_MAX && p == s + strlen(s),
	   "parse hex with many leading zeros");
	s = "0";
	p = s;
	ok(rsp_parse_hex(&p, s + 1, &v) == 0 && v == 0 && p == s + 1, "parse hex of '0'");
}

int main(void)
{
	test_good_packets();
	test_acks_and_interrupts();
	test_bad_packets();
	test_escapes();
	test_overlong();
	test_noack_handshake();
	test_nak_retransmit();
	test_send_vectors();
	test_send_runs();
	test_send_random();
	test_send_all_bytes();
	test_hex();
	return done_testing();
}
