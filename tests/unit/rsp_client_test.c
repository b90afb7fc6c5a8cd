/*
 * Unit tests for the client side of the RSP codec (rsp_client_init in
 * src/rsp/rsp_codec.c): reading a server's replies and notifications,
 * whose runs are run-length encoded, and sending without runs. The frames
 * fed here are built by hand (frame_of) from the protocol's rules, and the
 * round trips go through the server side of the same codec, so that either
 * side's encoding mistakes show on the other.
 */
#include "rsp/rsp.h"
#include "rsp_conn.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* start + body + '#' + the body's checksum, the body sent as it is. */
static void frame_of(struct buf *b, char start, const char *body, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += (uint8_t)body[i];
	buf_putc(b, start);
	buf_append(b, body, len);
	buf_printf(b, "#%02x", sum);
}

/*
 * Feed in chunks of chunk bytes (0: all at once); log every event as
 * "P:<payload>|", "%:<payload>|", "A|", "N|", "I|" or "B|".
 */
static void feed_log(struct rsp_conn *c, const struct buf *in, size_t chunk, struct buf *log)
{
	const uint8_t *p = (const uint8_t *)in->data;
	size_t len = in->len;

	while (len) {
		size_t n = chunk && chunk < len ? chunk : len;

		for (size_t off = 0; off < n;) {
			struct rsp_event ev;

			off += rsp_feed(c, p + off, n - off, &ev);
			if (ev.kind == RSP_EV_PACKET) {
				buf_puts(log, c->notify ? "%:" : "P:");
				buf_append(log, ev.data, ev.len);
				if (ev.data[ev.len] != '\0')
					buf_puts(log, "<not NUL-terminated>");
			} else if (ev.kind != RSP_EV_NONE) {
				buf_putc(log, " IANB"[ev.kind - RSP_EV_PACKET]);
			}
			if (ev.kind != RSP_EV_NONE)
				buf_putc(log, '|');
		}
		p += n;
		len -= n;
	}
}

/* One input, whole and split in 1, 2 and 3 bytes: the same events, the same acks. */
static void check_client(const char *name, const struct buf *in, const char *want, bool noack,
			 const char *want_out)
{
	static const size_t chunks[] = {0, 1, 2, 3};

	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		struct rsp_conn *c = new_conn(true, noack);
		struct buf log;

		buf_init(&log);
		feed_log(c, in, chunks[k], &log);
		is_mem(log.data ? log.data : "", log.len, want, strlen(want), "%s (chunk %zu)",
		       name, chunks[k]);
		is_mem(c->out.data ? c->out.data : "", c->out.len, want_out, strlen(want_out),
		       "%s: acks (chunk %zu)", name, chunks[k]);
		buf_free(&log);
		free_conn(c);
	}
}

/* One framed body: what the client reads of it. */
static void check_body(const char *name, const char *body, const char *want)
{
	struct buf in;

	buf_init(&in);
	frame_of(&in, '$', body, strlen(body));
	check_client(name, &in, want, true, "");
	buf_free(&in);
}

static void test_runs(void)
{
	check_body("a run of 3 more", "0* ", "P:0000|");
	check_body("a run of 1 more (the smallest)", "x*\x1e", "P:xx|");
	check_body("a run of 97 more", "a*~",
		   "P:"
		   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		   "aaaa"
		   "aaaaaaaaaaaaaaa|");
	check_body("runs between text", "T05*\"thread:1;", "P:T0555555thread:1;|");
	check_body("an escaped byte repeated", "}]*!", "P:}}}}}|");
	check_body("an escaped '*' is data", "a}\x0a", "P:a*|");
	check_body("a run at the start is broken", "* ab", "B|");
	check_body("a count of 0 is broken", "a*\x1d", "B|");
	check_body("a count below 0 is broken", "a*\x01", "B|");
}

static void test_notifications(void)
{
	struct buf in;

	buf_init(&in);
	frame_of(&in, '%', "Stop:T05*!", 10);
	frame_of(&in, '$', "OK", 2);
	check_client("a notification, then a reply", &in, "%:Stop:T055555|P:OK|", true, "");
	buf_free(&in);
}

static void test_bad_and_restart(void)
{
	struct buf in;

	buf_init(&in);
	buf_puts(&in, "$0* #00");
	frame_of(&in, '$', "OK", 2);
	check_client("a bad checksum, then a good reply", &in, "B|P:OK|", true, "");
	check_client("with acks: '-' then '+'", &in, "B|P:OK|", false, "-+");
	buf_reset(&in);
	buf_puts(&in, "$a*$");
	frame_of(&in, '$', "OK", 2);
	buf_puts(&in, "+-\x03");
	check_client("a '$' as the count starts over; acks, interrupts", &in, "P:OK|A|N|I|", true,
		     "");
	buf_free(&in);
}

/* Runs past RSP_MAX_PACKET break the packet; the next one is read. */
static void test_overlong(void)
{
	struct buf in, body;

	buf_init(&in);
	buf_init(&body);
	buf_putc(&body, 'z');
	for (size_t n = 1; n <= RSP_MAX_PACKET; n += 98)
		buf_puts(&body, "z*~");
	frame_of(&in, '$', body.data, body.len);
	frame_of(&in, '$', "OK", 2);
	check_client("runs past RSP_MAX_PACKET", &in, "B|P:OK|", true, "");
	buf_free(&body);
	buf_free(&in);
}

/* Read back one framed packet with a client connection. */
static bool read_back(const struct buf *framed, const uint8_t *payload, size_t len, bool notify)
{
	struct rsp_conn *c = new_conn(true, true);
	struct rsp_event ev = {0};
	size_t off = 0;
	bool good;

	while (off < framed->len && ev.kind == RSP_EV_NONE)
		off += rsp_feed(c, (const uint8_t *)framed->data + off, framed->len - off, &ev);
	good = off == framed->len && ev.kind == RSP_EV_PACKET && c->notify == notify &&
	       ev.len == len && (len == 0 || !memcmp(ev.data, payload, len));
	free_conn(c);
	return good;
}

/* Random payloads full of runs and specials, sent by a server, read by a client. */
static void test_server_to_client(void)
{
	static const uint8_t alphabet[] = {'0', '0', 'f', '#', '$', '*', '}', 0, 0x03, 0xff, ' '};
	static uint8_t payload[RSP_MAX_PACKET];
	int bad = 0;

	for (int round = 0; round < 300; round++) {
		struct rsp_conn *s = new_conn(false, true);
		size_t len = (size_t)(rng() % (round < 200 ? 300 : RSP_MAX_PACKET + 1));

		for (size_t i = 0; i < len;) {
			uint8_t b = alphabet[rng() % sizeof(alphabet)];
			size_t run = 1 + rng() % 120;

			for (; run && i < len; run--)
				payload[i++] = b;
		}
		rsp_send(s, payload, len);
		bad += !read_back(&s->out, payload, len, false);
		buf_reset(&s->out);
		rsp_send_notify(s, payload, len);
		bad += !read_back(&s->out, payload, len, true);
		free_conn(s);
	}
	is_int(bad, 0, "300 random payloads: server frame, client read back the same");
}

/* A client sends without runs; the server reads back exactly the payload. */
static void test_client_send(void)
{
	static const char payload[] = "Qutraced.trace:t64=0000000000000000;P=*}#$";
	struct rsp_conn *c = new_conn(true, false), *s = new_conn(false, true);
	struct rsp_event ev = {0};
	struct buf want;
	size_t off = 0;

	buf_init(&want);
	frame_of(&want, '$', LIT("Qutraced.trace:t64=0000000000000000;P=}\x0a}]}\x03}\x04"));
	rsp_send(c, payload, sizeof(payload) - 1);
	is_mem(c->out.data, c->out.len, want.data, want.len,
	       "a client escapes the specials and sends runs as they are");
	ok(c->last.len == c->out.len, "kept for retransmission while acks are on");
	while (off < c->out.len && ev.kind == RSP_EV_NONE)
		off += rsp_feed(s, (const uint8_t *)c->out.data + off, c->out.len - off, &ev);
	is_mem(ev.data ? ev.data : "", ev.len, payload, sizeof(payload) - 1,
	       "the server reads the client's packet back");
	buf_free(&want);
	free_conn(c);
	free_conn(s);
}

int main(void)
{
	test_runs();
	test_notifications();
	test_bad_and_restart();
	test_overlong();
	test_server_to_client();
	test_client_send();
	return done_testing();
}
