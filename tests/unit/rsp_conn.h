/*
 * rsp_conn.h: connections of the RSP codec on the heap (a struct rsp_conn
 * holds a whole packet), for its unit tests (rsp_codec_test.c for the
 * server's side, rsp_client_test.c for the client's), and their random
 * numbers.
 */
#ifndef UTRACED_TEST_RSP_CONN_H
#define UTRACED_TEST_RSP_CONN_H

#include <stdlib.h>

#include "rsp/rsp.h"

#define LIT(s) s, sizeof(s) - 1

/* A server's connection, or with client a client's (rsp_client_init). */
static inline struct rsp_conn *new_conn(bool client, bool noack)
{
	struct rsp_conn *c = malloc(sizeof(*c));

	if (!c)
		abort();
	if (client)
		rsp_client_init(c);
	else
		rsp_conn_init(c);
	c->noack = noack;
	return c;
}

static inline void free_conn(struct rsp_conn *c)
{
	rsp_conn_free(c);
	free(c);
}

/* xorshift64: reproducible pseudo-random numbers, the same in every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif
