/*
 * gdb_world.h: a gdb session on the fake kernel for the unit tests of the
 * packet handlers (tests/unit/gdb_resume_test.c and its neighbours; the
 * Makefile's GDB_WORLD_UNITS).
 *
 * The world is the fuzz harnesses' (fuzz/fuzz_world.c): one process of
 * three threads on tests/lib/fake_kernel.c, held by the session's engine A
 * beside a second engine B, with the guard that keeps handlers off real
 * files and processes. What is added here is the client's side: packets
 * framed and replies read with src/rsp's client side, and collected as
 * text, "|" between replies and '%' before a notification, so that a test
 * compares the whole conversation of one packet with one string.
 */
#ifndef UTRACED_GDB_WORLD_H
#define UTRACED_GDB_WORLD_H

#include <stdlib.h>
#include <string.h>

#include "fake_kernel.h"
#include "fuzz_world.h"
#include "gdb/gdb_int.h"
#include "rsp/rsp.h"
#include "tap.h"

#define GW_PID	   "p4c4b40" /* PID in a thread id */
#define GW_TID(i)  GW_PID ".4c4b4" #i
#define GW_REPLIES 65536

/* What the session sent since the last call, as "reply|%notification|...". */
static inline const char *gw_replies(struct gdb_session *s)
{
	static char text[GW_REPLIES];
	static struct rsp_conn c;
	size_t n = 0, off = 0;

	rsp_client_init(&c);
	c.noack = true;
	text[0] = '\0';
	while (off < s->rsp.out.len) {
		struct rsp_event ev;

		off += rsp_feed(&c, (const uint8_t *)s->rsp.out.data + off, s->rsp.out.len - off,
				&ev);
		if (ev.kind != RSP_EV_PACKET)
			continue;
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s%.*s", n ? "|" : "",
				      c.notify ? "%" : "", (int)ev.len, ev.data);
		if (n >= sizeof(text))
			abort(); /* a test's conversation is short */
	}
	rsp_conn_free(&c);
	buf_reset(&s->rsp.out);
	return text;
}

static inline const char *gw_ask(struct gdb_session *s, const char *payload);

/*
 * A session that has stopped the process, no acks, and told gdb of the
 * stop ('?'), as gdb's first packets after an attach do.
 */
static inline struct gdb_session *gw_start(void)
{
	struct gdb_session *s = fw_start(NULL);

	s->rsp.noack = true;
	gw_replies(s);
	gw_ask(s, "?");
	trace();
	return s;
}

/*
 * One packet from the client; its reply and whatever the session sent
 * when the event loop then handed the engines their reports.
 */
static inline const char *gw_ask_len(struct gdb_session *s, const void *payload, size_t len)
{
	static char text[2 * GW_REPLIES];
	static struct rsp_conn c;
	const char *late;

	rsp_client_init(&c);
	c.noack = true;
	rsp_send(&c, payload, len);
	gdb_session_input(s, (const uint8_t *)c.out.data, c.out.len);
	rsp_conn_free(&c);
	snprintf(text, sizeof(text), "%s", gw_replies(s));
	fw_input(s, "", 0); /* the rest of the event loop's turn: reports */
	late = gw_replies(s);
	if (*late)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", *text ? "|" : "",
			 late);
	return text;
}

static inline const char *gw_ask(struct gdb_session *s, const char *payload)
{
	return gw_ask_len(s, payload, strlen(payload));
}

/* A kernel event (fw_event()), then what the session sent about it. */
static inline const char *gw_event(struct gdb_session *s, int kind, int thread, int arg)
{
	const uint8_t ev[3] = {(uint8_t)kind, (uint8_t)(thread - 1), (uint8_t)arg};

	fw_event(ev, sizeof(ev));
	return gw_replies(s);
}

enum { GW_INT3, GW_STEP, GW_SIGNAL, GW_GROUP_STOP, GW_WATCH, GW_DIE, GW_SYSCALL };

/* A hostile packet and the reply it must get. */
struct gw_refusal {
	const char *pkt;
	const char *reply;
	const char *why;
};

/* Each packet gets its reply; none resumes a thread or moves T1's pc. */
static inline void gw_refused(struct gdb_session *s, const struct gw_refusal *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = k_pc(1);

		is_str(gw_ask(s, r[i].pkt), r[i].reply, "%s: %s", r[i].why,
		       *r[i].reply ? r[i].reply : "the empty reply");
		is_str(trace(), "", "  nothing resumed");
		ok(k_pc(1) == pc, "  no pc changed");
	}
}

/* The session goes; true when the fake kernel saw nothing wrong before. */
static inline bool gw_stop(struct gdb_session *s)
{
	bool clean = fake_kernel_clean();

	fw_stop(s);
	return clean;
}

#endif
