/*
 * rsp_codec: framing of GDB Remote Serial Protocol packets (see rsp.h).
 *
 * Receiving is a push state machine that takes one byte at a time, so every
 * transport can hand over whatever it happened to read, split anywhere.
 * Sending frames a payload into the connection's output buffer with escapes,
 * run-length encoding and the checksum. Nothing here does I/O.
 *
 * Acks: every good packet is answered with '+', every broken one with '-',
 * until the caller sets c->noack. For "QStartNoAckMode" the '+' is still
 * sent (the client expects that one last ack); the packet handler sets
 * c->noack = true only after rsp_feed() has returned the packet.
 *
 * Clients never run-length encode what they send, so on a server's
 * connection a '*' in a received body is plain data and only '}' escapes
 * are undone. A client's connection (rsp_client_init) undoes the runs of
 * the replies it reads too, and sends without them.
 */
#include "rsp.h"

#include <string.h>

/* Receive states, kept in c->state. */
enum {
	ST_IDLE,      /* between packets: acks, ^C, '$' or '%' */
	ST_BODY,      /* inside the body, waiting for '#' */
	ST_CSUM1,     /* after '#': first checksum digit */
	ST_CSUM2,     /* second checksum digit */
	ST_CSUM2_BAD, /* second checksum digit after a bad first one */
	ST_RUN,	      /* client side, after '*': the repeat count */
};

#define RSP_ESCAPE  '}'
#define RSP_ESC_XOR 0x20
#define RSP_RLE	    '*'
/* A repeat count n (additional copies) is sent as the character n + 29. */
#define RLE_BIAS      29
#define RLE_MIN_EXTRA 3	 /* ' ': shorter runs do not save anything */
#define RLE_MAX_EXTRA 97 /* '~': the last printable character */

static const char hex_digits[] = "0123456789abcdef";

void rsp_conn_init(struct rsp_conn *c)
{
	c->state = ST_IDLE;
	c->sum = 0;
	c->want_sum = 0;
	c->escape = false;
	c->broken = false;
	c->noack = false;
	c->notify = false;
	c->client = false;
	c->len = 0;
	c->pkt[0] = '\0';
	buf_init(&c->out);
	buf_init(&c->last);
}

void rsp_client_init(struct rsp_conn *c)
{
	rsp_conn_init(c);
	c->client = true;
}

void rsp_conn_free(struct rsp_conn *c)
{
	buf_free(&c->out);
	buf_free(&c->last);
}

static void start_packet(struct rsp_conn *c, bool notify)
{
	c->state = ST_BODY;
	c->sum = 0;
	c->want_sum = 0;
	c->escape = false;
	c->broken = false;
	c->notify = notify;
	c->len = 0;
}

static void put_ack(struct rsp_conn *c, char ack)
{
	if (!c->noack)
		buf_putc(&c->out, ack);
}

static bool feed_idle(struct rsp_conn *c, uint8_t b, struct rsp_event *ev)
{
	switch (b) {
	case '+':
		ev->kind = RSP_EV_ACK;
		return true;
	case '-':
		if (!c->noack && c->last.len)
			buf_append(&c->out, c->last.data, c->last.len);
		ev->kind = RSP_EV_NAK;
		return true;
	case 0x03:
		ev->kind = RSP_EV_INTERRUPT;
		return true;
	case '$':
	case '%':
		start_packet(c, b == '%');
		return false;
	default:
		/* Line noise, or a stray ack digit: skip it. */
		return false;
	}
}

/* Store one unescaped body byte; past RSP_MAX_PACKET only remember that. */
static void store(struct rsp_conn *c, uint8_t b)
{
	if (c->len >= RSP_MAX_PACKET) {
		c->broken = true;
		return;
	}
	c->pkt[c->len++] = (char)b;
}

static void feed_body(struct rsp_conn *c, uint8_t b)
{
	/* A raw '$' is never data (it is escaped): the client started over. */
	if (b == '$') {
		start_packet(c, false);
		return;
	}
	if (b == '#') {
		c->state = ST_CSUM1;
		return;
	}
	c->sum += b;
	if (c->escape) {
		c->escape = false;
		store(c, b ^ RSP_ESC_XOR);
		return;
	}
	if (b == RSP_ESCAPE) {
		c->escape = true;
		return;
	}
	if (b == RSP_RLE && c->client) {
		c->state = ST_RUN;
		return;
	}
	store(c, b);
}

/* The count after '*': that many more copies of the byte before it. */
static void feed_run(struct rsp_conn *c, uint8_t b)
{
	size_t n;

	if (b == '$') {
		start_packet(c, false);
		return;
	}
	c->sum += b;
	c->state = ST_BODY;
	/* As gdb: a run of nothing, or of fewer than one more copy, is broken. */
	if (!c->len || b <= RLE_BIAS) {
		c->broken = true;
		return;
	}
	if (c->broken)
		return;
	/* store() for each copy, at once: what does not fit breaks the packet */
	n = (size_t)(b - RLE_BIAS);
	if (n > RSP_MAX_PACKET - c->len) {
		n = RSP_MAX_PACKET - c->len;
		c->broken = true;
	}
	memset(c->pkt + c->len, c->pkt[c->len - 1], n);
	c->len += n;
}

static bool reject(struct rsp_conn *c, struct rsp_event *ev)
{
	c->state = ST_IDLE;
	put_ack(c, '-');
	ev->kind = RSP_EV_BAD;
	return true;
}

static bool finish_packet(struct rsp_conn *c, struct rsp_event *ev)
{
	/* A body ending in a lone '}' is as broken as a bad checksum. */
	if (c->broken || c->escape || c->sum != c->want_sum)
		return reject(c, ev);
	c->state = ST_IDLE;
	c->pkt[c->len] = '\0';
	put_ack(c, '+');
	ev->kind = RSP_EV_PACKET;
	ev->data = c->pkt;
	ev->len = c->len;
	return true;
}

static bool feed_csum(struct rsp_conn *c, uint8_t b, struct rsp_event *ev)
{
	int d = rsp_hex_digit(b);

	/*
	 * A '$' here means the client gave up on this packet and resent it;
	 * NAKing as well would make it send the packet a third time.
	 */
	if (b == '$') {
		start_packet(c, false);
		return false;
	}
	if (c->state == ST_CSUM2_BAD)
		return reject(c, ev);
	if (c->state == ST_CSUM1) {
		/* Always eat both digits, so a bad one is not read as an ack. */
		c->state = d < 0 ? ST_CSUM2_BAD : ST_CSUM2;
		c->want_sum = d < 0 ? 0 : (uint8_t)(d << 4);
		return false;
	}
	if (d < 0)
		return reject(c, ev);
	c->want_sum |= (uint8_t)d;
	return finish_packet(c, ev);
}

static bool feed_byte(struct rsp_conn *c, uint8_t b, struct rsp_event *ev)
{
	switch (c->state) {
	case ST_IDLE:
		return feed_idle(c, b, ev);
	case ST_BODY:
		feed_body(c, b);
		return false;
	case ST_RUN:
		feed_run(c, b);
		return false;
	default:
		return feed_csum(c, b, ev);
	}
}

size_t rsp_feed(struct rsp_conn *c, const uint8_t *data, size_t len, struct rsp_event *ev)
{
	size_t i = 0;

	ev->kind = RSP_EV_NONE;
	ev->data = NULL;
	ev->len = 0;
	while (i < len) {
		if (feed_byte(c, data[i++], ev))
			break;
	}
	return i;
}

static bool needs_escape(uint8_t b)
{
	return b == '#' || b == '$' || b == RSP_ESCAPE || b == RSP_RLE;
}

/*
 * How many more copies of b follow at p[0..n), as a usable repeat count:
 * 0 if too few to be worth encoding, never 6 or 7 (they would encode as '#'
 * and '$'), at most RLE_MAX_EXTRA. Whatever is left is sent afterwards.
 */
static size_t rle_extra(const uint8_t *p, size_t n, uint8_t b)
{
	size_t extra = 0;

	while (extra < n && extra < RLE_MAX_EXTRA && p[extra] == b)
		extra++;
	if (extra < RLE_MIN_EXTRA)
		return 0;
	while (extra + RLE_BIAS == '#' || extra + RLE_BIAS == '$')
		extra--;
	return extra;
}

/* Append start + encoded payload + '#' + checksum to b; runs only if rle. */
static void frame(struct buf *b, char start, const uint8_t *p, size_t n, bool rle)
{
	char *o, *body;
	uint8_t sum = 0;

	/* Worst case: every byte escaped, plus start, '#' and two digits. */
	buf_reserve(b, 2 * n + 4);
	o = b->data + b->len;
	*o++ = start;
	body = o;
	for (size_t i = 0; i < n;) {
		uint8_t x = p[i++];
		size_t extra;

		if (needs_escape(x)) {
			*o++ = RSP_ESCAPE;
			*o++ = (char)(x ^ RSP_ESC_XOR);
			continue;
		}
		*o++ = (char)x;
		/* most bytes differ from the next: no run to measure */
		extra = rle && i < n && p[i] == x ? rle_extra(p + i, n - i, x) : 0;
		if (!extra)
			continue;
		*o++ = RSP_RLE;
		*o++ = (char)(extra + RLE_BIAS);
		i += extra;
	}
	for (const char *q = body; q < o; q++)
		sum += (uint8_t)*q;
	*o++ = '#';
	*o++ = hex_digits[sum >> 4];
	*o++ = hex_digits[sum & 15];
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
}

void rsp_send(struct rsp_conn *c, const void *payload, size_t len)
{
	/* Without acks nothing is ever retransmitted: skip the copy. */
	if (c->noack) {
		buf_reset(&c->last);
		frame(&c->out, '$', payload, len, !c->client);
		return;
	}
	buf_reset(&c->last);
	frame(&c->last, '$', payload, len, !c->client);
	buf_append(&c->out, c->last.data, c->last.len);
}

void rsp_send_notify(struct rsp_conn *c, const void *payload, size_t len)
{
	frame(&c->out, '%', payload, len, !c->client);
}
