/*
 * agent_blob.h: the in-process agent's blob, mapped executable in the
 * test process itself, and the programs it runs (bytecode expressions in
 * the blob's format), for the unit tests that run it for real.
 */
#ifndef UTRACED_AGENT_BLOB_H
#define UTRACED_AGENT_BLOB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "agent/agent_inproc.h"

/* The blob's entry point; aborts if it cannot be mapped. */
static inline agent_inproc_entry_fn agent_blob_load(void)
{
	void *m = mmap(NULL, agent_inproc_blob_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		abort();
	memcpy(m, agent_inproc_blob, agent_inproc_blob_len);
	if (mprotect(m, agent_inproc_blob_len, PROT_READ | PROT_EXEC) < 0)
		abort();
	return (agent_inproc_entry_fn)m;
}

/* One bytecode expression being built. */
struct code {
	uint8_t b[512];
	size_t n;
};

static inline void emit(struct code *c, int op)
{
	if (c->n < sizeof(c->b))
		c->b[c->n++] = (uint8_t)op;
}

/* const64 (0x25) v, big-endian as gdb writes it */
static inline void push64(struct code *c, uint64_t v)
{
	emit(c, 0x25);
	for (int i = 7; i >= 0; i--)
		emit(c, (int)(v >> (8 * i) & 0xff));
}

/* c appended to a program at buf + off: its length, its bytes, 4-aligned; the new end. */
static inline size_t code_put(uint8_t *buf, size_t off, const struct code *c)
{
	uint32_t len = (uint32_t)c->n;

	memcpy(buf + off, &len, 4);
	memcpy(buf + off + 4, c->b, len);
	return off + 4 + ((len + 3) & ~3u);
}

#endif
