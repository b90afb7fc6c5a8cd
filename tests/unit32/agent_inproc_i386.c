/*
 * The i386 in-process agent (agent_inproc.c built with -m32: the blob a
 * 32-bit process would run) against src/agent's evaluator built for i386
 * too, on the same bytecode, registers and memory: a differential test,
 * as tests/unit/agent_inproc_test.c is for the amd64 blob. Built and run
 * with -m32 (`make check` runs it where the kernel runs 32-bit programs).
 *
 * Each program P is checked for its value: the blob runs "P != v", v what
 * agent_eval() computed here; it must go on, and trap for v + 1. A
 * program that fails here (stack underflow, division by zero, an opcode
 * the agent refuses) must trap there.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "agent/agent.h"
#include "agent/agent_inproc.h"
#include "agent_blob.h"
#include "tap.h"

extern const unsigned char agent_inproc32_blob[];
extern const unsigned long agent_inproc32_blob_len;

#define PC 0x8049136u

static agent_inproc_entry32_fn entry;
static struct agent_inproc_frame32 frame;
static uint8_t mem[256];

static agent_inproc_entry32_fn blob_load(void)
{
	void *m = mmap(NULL, agent_inproc32_blob_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		abort();
	memcpy(m, agent_inproc32_blob, agent_inproc32_blob_len);
	if (mprotect(m, agent_inproc32_blob_len, PROT_READ | PROT_EXEC) < 0)
		abort();
	return (agent_inproc_entry32_fn)m;
}

/* --- utraced's side: gdb's i386 registers from the same frame */

static int host_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

static int host_read_reg(void *ctx, int regnum, uint64_t *val)
{
	(void)ctx;
	if (regnum == 4)
		*val = frame.pushal[3] + 4u;
	else if (regnum >= 0 && regnum < 8)
		*val = frame.pushal[7 - regnum];
	else if (regnum == 8)
		*val = PC;
	else if (regnum == 9)
		*val = frame.eflags;
	else
		return -EOPNOTSUPP;
	return 0;
}

/* --- programs */

/* A program of one condition, c, in the agent's format. */
static struct agent_inproc_prog *prog_of(const struct code *c)
{
	static _Alignas(8) uint8_t buf[1024];
	struct agent_inproc_prog *prog = (void *)buf;
	uint32_t len = (uint32_t)c->n;

	memset(buf, 0, sizeof(buf));
	prog->pc = PC;
	prog->nconds = 1;
	memcpy(buf + sizeof(*prog), &len, 4);
	memcpy(buf + sizeof(*prog) + 4, c->b, len);
	prog->size = (uint32_t)(sizeof(*prog) + 4 + ((len + 3) & ~3u));
	return prog;
}

/* P with its final `end` made "P != v; end". */
static struct code not_equal(const struct code *p, uint64_t v)
{
	struct code c = *p;

	c.n--;
	push64(&c, v);
	emit(&c, EQUAL);
	emit(&c, LOG_NOT);
	emit(&c, END);
	return c;
}

static bool same(const struct code *p, const char *what)
{
	struct agent_env env = {.read_mem = host_read_mem, .read_reg = host_read_reg};
	struct code c;
	int64_t v;
	int rc = agent_eval(p->b, p->n, &env, &v);

	if (rc < 0) {
		if (entry(&frame, prog_of(p)) == AGENT_INPROC_TRAP)
			return true;
		diag("%s: fails here (%d), goes on in the blob", what, rc);
		return false;
	}
	c = not_equal(p, (uint64_t)v);
	if (entry(&frame, prog_of(&c)) != AGENT_INPROC_GO) {
		diag("%s: %lld here, not in the blob", what, (long long)v);
		return false;
	}
	c = not_equal(p, (uint64_t)v + 1);
	if (entry(&frame, prog_of(&c)) != AGENT_INPROC_TRAP) {
		diag("%s: %lld here, also %lld in the blob", what, (long long)v, (long long)v + 1);
		return false;
	}
	return true;
}

static void binary_cases(void)
{
	static const int ops[] = {ADD,	 SUB,	MUL,	 DIV_S,	 DIV_U,	  REM_S, REM_U,	 LSH,
				  RSH_S, RSH_U, BIT_AND, BIT_OR, BIT_XOR, EQUAL, LESS_S, LESS_U};
	static const uint64_t vals[] = {0,
					1,
					2,
					7,
					63,
					64,
					0x7fffffff,
					0x80000000,
					0xffffffff,
					0x100000000ULL,
					0x123456789abcdefULL,
					0x7fffffffffffffffULL,
					0x8000000000000000ULL,
					(uint64_t)-1,
					(uint64_t)-7};
	size_t nv = sizeof(vals) / sizeof(vals[0]), bad = 0, n = 0;

	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (size_t i = 0; i < nv; i++) {
			for (size_t j = 0; j < nv; j++) {
				struct code c = {0};
				char what[64];

				push64(&c, vals[i]);
				push64(&c, vals[j]);
				emit(&c, ops[o]);
				emit(&c, END);
				snprintf(what, sizeof(what), "op %#x %#llx %#llx", ops[o],
					 (unsigned long long)vals[i], (unsigned long long)vals[j]);
				bad += !same(&c, what);
				n++;
			}
		}
	}
	ok(bad == 0, "%zu binary operations (64-bit division too): the same value", n);
}

static void register_cases(void)
{
	size_t bad = 0;

	for (int r = 0; r < 12; r++) {
		struct code c = {0};
		char what[32];

		emit(&c, REG);
		emit_be(&c, (uint64_t)r, 2);
		emit(&c, END);
		snprintf(what, sizeof(what), "reg %d", r);
		bad += !same(&c, what);
	}
	ok(bad == 0, "registers 0-9 (eax .. edi, eip, eflags) read alike, 10-11 refused alike");
}

static void random_programs(void)
{
	int bad = 0, n = 20000;
	struct code c;
	char what[32];

	for (int i = 0; i < n && bad < 5; i++) {
		agent_random_program(&c, mem, sizeof(mem), 10);
		snprintf(what, sizeof(what), "random program %d", i);
		bad += !same(&c, what);
	}
	ok(bad == 0, "%d random programs: the same value in the blob and here", n);
}

/* The frame's registers and memory: random, esp somewhere plausible. */
static void scramble(void)
{
	for (int i = 0; i < 8; i++)
		frame.pushal[i] = (uint32_t)rand() * 2654435761u;
	frame.eflags = 0x246 | ((uint32_t)rand() & 0x8d5);
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)rand();
}

int main(void)
{
	struct code c = {0};

	srand(4321);
	entry = blob_load();
	scramble();
	ok(sizeof(void *) == 4, "a 32-bit test (the i386 blob runs here)");
	binary_cases();
	register_cases();
	emit(&c, FLOAT);
	emit(&c, END);
	ok(entry(&frame, prog_of(&c)) == AGENT_INPROC_TRAP, "an opcode it refuses: traps");
	c = (struct code){0};
	push64(&c, (uint64_t)(uintptr_t)&mem[8]);
	emit(&c, REF64);
	emit(&c, END);
	ok(same(&c, "ref64"), "a 64-bit read of memory (a plain load in the blob)");
	for (int k = 0; k < 4; k++) {
		scramble();
		random_programs();
	}
	done_testing();
}
