/*
 * agent_blob.h: the in-process agent's blob, mapped executable in the
 * test process itself, for the unit tests that run it for real.
 */
#ifndef UTRACED_AGENT_BLOB_H
#define UTRACED_AGENT_BLOB_H

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

#endif
