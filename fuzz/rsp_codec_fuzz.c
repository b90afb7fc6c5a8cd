/*
 * rsp_codec_fuzz.c: libFuzzer harness for the RSP codec (src/rsp/).
 *
 * The input is what a client sends, handed to rsp_feed() in pieces split
 * where the input says (a transport reads whatever arrived). Every packet
 * that comes out is checked (NUL-terminated, within RSP_MAX_PACKET), sent
 * back with rsp_send() and rsp_send_notify(), and the framed reply is
 * decoded again by an independent decoder here: escapes, run lengths and
 * checksum must give back exactly the payload, and so must the codec's own
 * client side (rsp_client_init). The same input also goes, as a server's
 * replies, to a client connection. The hex helpers get each payload too.
 * Any mismatch aborts, which libFuzzer reports like a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsp/rsp.h"
#include "fuzz_check.h"

/*
 * Decode one framed packet at f[0..n) (start char, body, '#', two digits)
 * into out; returns its length. Written from the protocol's rules, not
 * from rsp_codec.c, so that the two check each other.
 */
static size_t unframe(const char *f, size_t n, char start, uint8_t *out, size_t cap)
{
	size_t i = 1, len = 0;
	unsigned sum = 0, want;

	CHECK(n >= 4 && f[0] == start);
	while (i < n && f[i] != '#') {
		uint8_t c = (uint8_t)f[i];

		CHECK(c != '$');
		sum += c;
		if (c == '}') {
			CHECK(i + 1 < n && f[i + 1] != '#');
			sum += (uint8_t)f[i + 1];
			CHECK(len < cap);
			out[len++] = (uint8_t)f[i + 1] ^ 0x20;
			i += 2;
		} else if (c == '*') {
			size_t rep;

			CHECK(len > 0 && i + 1 < n);
			sum += (uint8_t)f[i + 1];
			rep = (size_t)((uint8_t)f[i + 1]) - 29;
			CHECK(rep >= 3 && rep <= 97 && f[i + 1] != '#' && f[i + 1] != '$');
			CHECK(len + rep <= cap);
			memset(out + len, out[len - 1], rep);
			len += rep;
			i += 2;
		} else {
			CHECK(len < cap);
			out[len++] = c;
			i++;
		}
	}
	CHECK(i + 3 == n && f[i] == '#');
	CHECK(sscanf(f + i + 1, "%2x", &want) == 1 && want == (sum & 0xff));
	return len;
}

/* The client side reads the framed packet f[0..n) back as payload[0..len). */
static void client_reads(const char *f, size_t n, const char *payload, size_t len, bool notify)
{
	static struct rsp_conn c;
	struct rsp_event ev = {0};
	size_t off = 0;

	rsp_client_init(&c);
	c.noack = true;
	while (off < n && ev.kind == RSP_EV_NONE)
		off += rsp_feed(&c, (const uint8_t *)f + off, n - off, &ev);
	CHECK(off == n && ev.kind == RSP_EV_PACKET && c.notify == notify && ev.len == len);
	CHECK(!memcmp(ev.data, payload, len));
	rsp_conn_free(&c);
}

/* Frame the payload both ways and check that it comes back unchanged. */
static void echo(const char *payload, size_t len, bool noack)
{
	static uint8_t back[RSP_MAX_PACKET + 1];
	struct rsp_conn c;

	rsp_conn_init(&c);
	c.noack = noack;
	rsp_send(&c, payload, len);
	CHECK(unframe(c.out.data, c.out.len, '$', back, sizeof(back)) == len);
	CHECK(!memcmp(back, payload, len));
	client_reads(c.out.data, c.out.len, payload, len, false);
	if (!noack)
		CHECK(c.last.len == c.out.len && !memcmp(c.last.data, c.out.data, c.out.len));
	buf_reset(&c.out);
	rsp_send_notify(&c, payload, len);
	CHECK(unframe(c.out.data, c.out.len, '%', back, sizeof(back)) == len);
	CHECK(!memcmp(back, payload, len));
	client_reads(c.out.data, c.out.len, payload, len, true);
	rsp_conn_free(&c);
}

/* The hex helpers on a payload: never read past it, never overflow. */
static void hex(const char *p, size_t len)
{
	uint8_t out[64];
	const char *q = p;
	uint64_t v;

	rsp_hex_decode(p, len, out, len / 2 < sizeof(out) ? len / 2 : sizeof(out));
	while (q < p + len) {
		if (rsp_parse_hex(&q, p + len, &v) < 0)
			q++;
		CHECK(q <= p + len);
	}
}

/*
 * The input in pieces of stride bytes (0: all at once), as a transport
 * hands it over: every packet is bounded and terminated; what a server's
 * side gets is echoed back and its hex decoded too.
 */
static void feed(struct rsp_conn *c, const uint8_t *data, size_t size, size_t stride)
{
	struct rsp_event ev;

	while (size) {
		size_t chunk = stride && stride < size ? stride : size;
		size_t n = rsp_feed(c, data, chunk, &ev);

		CHECK(n > 0 && n <= chunk);
		data += n;
		size -= n;
		if (ev.kind != RSP_EV_PACKET)
			continue;
		CHECK(ev.len <= RSP_MAX_PACKET && ev.data[ev.len] == '\0');
		if (c->client)
			continue;
		hex(ev.data, ev.len);
		echo(ev.data, ev.len, c->noack);
		/* what the dispatcher does after QStartNoAckMode's reply */
		if (ev.len == 15 && !memcmp(ev.data, "QStartNoAckMode", 15))
			c->noack = true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rsp_conn server, client;

	if (size < 1)
		return 0;
	/* first byte: no-ack mode, and how many bytes each read hands over (0: all) */
	rsp_conn_init(&server);
	rsp_client_init(&client);
	server.noack = client.noack = data[0] & 1;
	feed(&client, data + 1, size - 1, data[0] >> 1); /* as a server's replies */
	feed(&server, data + 1, size - 1, data[0] >> 1);
	rsp_conn_free(&client);
	rsp_conn_free(&server);
	return 0;
}
