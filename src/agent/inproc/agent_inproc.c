/*
 * agent_inproc.c: the in-process agent's entry, run inside a traced
 * process by a breakpoint's trampoline (see ../agent_inproc.h).
 *
 * Built only as the freestanding blob (Makefile: no libc, no loader, no
 * writable data, no SSE: -mgeneral-regs-only leaves the program's vector
 * registers alone; -ffixed-r15 keeps the trampoline's frame pointer in r15
 * at every instruction, so utraced can take a thread stopped anywhere in
 * here back to its breakpoint). The evaluator is agent_expr.c itself,
 * compiled with AGENT_FREESTANDING: printf is refused (a trap: utraced
 * runs it).
 */
#include "../agent.h"
#include "../agent_inproc.h"

#include <errno.h>
#include <stddef.h>

/* What the compiler may call for struct copies and initialisers. */
void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

struct inproc_ctx {
	const struct agent_inproc_frame *f;
	const struct agent_inproc_prog *prog;
};

/* A direct load: a fault is caught by utraced, not by us (see the header). */
static int inproc_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const volatile unsigned char *src = (const volatile unsigned char *)(uintptr_t)addr;
	unsigned char *dst = buf;

	(void)ctx;
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
	return 0;
}

static int inproc_read_reg(void *ctx, int regnum, uint64_t *val)
{
	const struct inproc_ctx *c = ctx;

	if (regnum == AGENT_INPROC_RSP_SLOT)
		*val = (uint64_t)(uintptr_t)(c->f + 1) + AGENT_INPROC_RED_ZONE;
	else if (regnum >= 0 && regnum < 16)
		*val = c->f->gpr[regnum];
	else if (regnum == 16)
		*val = c->prog->pc;
	else if (regnum == 17)
		*val = (uint32_t)c->f->eflags;
	else
		return -EOPNOTSUPP; /* segments, bases, vectors: utraced has them */
	return 0;
}

/* The entry, placed at offset 0 of the blob by agent_inproc.ld. */
__attribute__((section(".text.entry"), used)) uint64_t
agent_inproc_entry(const struct agent_inproc_frame *f, const struct agent_inproc_prog *prog)
{
	struct inproc_ctx c = {.f = f, .prog = prog};
	struct agent_env env = {
		.ctx = &c, .read_mem = inproc_read_mem, .read_reg = inproc_read_reg};
	const unsigned char *p = (const unsigned char *)(prog + 1);
	const unsigned char *end = (const unsigned char *)prog + prog->size;

	if (prog->nconds == 0)
		return AGENT_INPROC_TRAP;
	for (uint32_t i = 0; i < prog->nconds; i++) {
		uint32_t len;
		int64_t v;

		if (end - p < 4)
			return AGENT_INPROC_TRAP;
		len = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		      (uint32_t)p[3] << 24;
		p += 4;
		if ((uint64_t)(end - p) < len)
			return AGENT_INPROC_TRAP;
		if (agent_eval(p, len, &env, &v) < 0 || v != 0)
			return AGENT_INPROC_TRAP;
		p += (len + 3) & ~3u;
	}
	return AGENT_INPROC_GO;
}
