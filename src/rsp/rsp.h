/*
 * rsp: the GDB Remote Serial Protocol codec.
 *
 * Pure byte shuffling, no I/O and no knowledge of targets: bytes received
 * from a client are pushed in with rsp_feed(), which hands back one event at
 * a time (a packet, a ^C, an ack); replies are framed into conn->out, which
 * the endpoint drains to its socket, pipe or FUSE file. The same codec thus
 * serves every transport and every I/O model.
 *
 * The same connection serves the client side too (ustrace joining a process
 * the daemon holds): rsp_client_init() makes rsp_feed() read a server's
 * replies, whose runs are run-length encoded, and rsp_send() frame packets
 * without run-length encoding, which a server does not decode.
 */
#ifndef UTRACED_RSP_H
#define UTRACED_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"

/*
 * Largest packet payload we accept (after unescaping) and advertise as
 * PacketSize. See docs/performance.md for why this size.
 */
#define RSP_MAX_PACKET 0x4000

enum rsp_event_kind {
	RSP_EV_NONE,	  /* need more bytes */
	RSP_EV_PACKET,	  /* a good packet: payload in ev->data/ev->len */
	RSP_EV_INTERRUPT, /* a 0x03 byte outside a packet */
	RSP_EV_ACK,	  /* '+' received */
	RSP_EV_NAK,	  /* '-' received; the last packet was re-queued */
	RSP_EV_BAD,	  /* a broken packet was NAKed (or dropped in no-ack mode) */
};

struct rsp_event {
	enum rsp_event_kind kind;
	const char *data; /* unescaped payload, NUL-terminated, valid until next feed */
	size_t len;
};

struct rsp_conn {
	int state;	  /* receive state machine */
	uint8_t sum;	  /* running checksum of the packet body */
	uint8_t want_sum; /* checksum sent by the peer */
	bool escape;	  /* previous body byte was '}' */
	bool broken;	  /* body past RSP_MAX_PACKET, or a run with nothing to repeat */
	bool noack;	  /* QStartNoAckMode accepted */
	bool notify;	  /* the packet being received started with '%' */
	bool client;	  /* we are the client: replies are run-length encoded */
	size_t len;	  /* unescaped body length */
	char pkt[RSP_MAX_PACKET + 1];
	struct buf out;	 /* framed bytes waiting to be sent */
	struct buf last; /* last framed packet, for retransmission on '-' */
};

void rsp_conn_init(struct rsp_conn *c);
/*
 * The client side: rsp_feed() decodes '*' runs (a run with nothing before
 * it or a count below 1 breaks the packet), and an RSP_EV_PACKET is a '%'
 * notification when c->notify is set; rsp_send() does not encode runs.
 */
void rsp_client_init(struct rsp_conn *c);
void rsp_conn_free(struct rsp_conn *c);

/*
 * Consume bytes from data[0..len) until one event is complete; returns the
 * number of bytes consumed (always > 0 when len > 0). The caller loops until
 * everything is consumed. A good packet is acknowledged with '+' in c->out
 * (unless in no-ack mode), a bad one with '-'.
 */
size_t rsp_feed(struct rsp_conn *c, const uint8_t *data, size_t len, struct rsp_event *ev);

/*
 * Frame payload as "$payload#cs" into c->out: '#', '$', '}' and '*' are
 * escaped, runs are run-length encoded (not by a client). Any payload bytes
 * are allowed.
 */
void rsp_send(struct rsp_conn *c, const void *payload, size_t len);
/* Same, as a "%payload#cs" asynchronous notification (never retransmitted). */
void rsp_send_notify(struct rsp_conn *c, const void *payload, size_t len);

/* Hex helpers shared by packet parsers (rsp_hex.c). */
int rsp_hex_digit(int c); /* 0..15, or -1: not a hex digit (a value, not an error) */
/*
 * Decode exactly 2*n hex digits from s into out[n]. Returns 0, or -EINVAL on
 * a bad digit or short input (slen < 2*n).
 */
int rsp_hex_decode(const char *s, size_t slen, uint8_t *out, size_t n);
/*
 * Parse a hex number at *p (stopping at the first non-hex char or end).
 * Returns 0 and advances *p, or -EINVAL if no digit or the value overflows
 * 64 bits.
 */
int rsp_parse_hex(const char **p, const char *end, uint64_t *out);

#endif
