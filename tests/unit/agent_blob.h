/*
 * agent_blob.h: the in-process agent's blob, mapped executable in the
 * test process itself, and the programs it runs (bytecode expressions in
 * the blob's format), for the unit tests that run it for real.
 */
#ifndef UTRACED_AGENT_BLOB_H
#define UTRACED_AGENT_BLOB_H

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "agent/agent_inproc.h"

/* The bytecode's opcodes (GDB manual, "Bytecode Descriptions"). */
enum {
	ADD = 0x02,
	SUB,
	MUL,
	DIV_S,
	DIV_U,
	REM_S,
	REM_U,
	LSH,
	RSH_S,
	RSH_U,
	LOG_NOT = 0x0e,
	BIT_AND,
	BIT_OR,
	BIT_XOR,
	BIT_NOT,
	EQUAL,
	LESS_S,
	LESS_U,
	EXT,
	REF8,
	REF16,
	REF32,
	REF64,
	IF_GOTO = 0x20,
	GOTO,
	CONST8,
	CONST16,
	CONST32,
	CONST64,
	REG,
	END,
	DUP,
	POP,
	ZERO_EXT,
	SWAP,
	GETV,
	PICK = 0x32,
	ROT,
	PRINTF,
	FLOAT = 0x01,
	TRACE = 0x0c,
	REF_FLOAT = 0x1b,
};

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

/* v in bytes bytes, big-endian as gdb writes operands */
static inline void emit_be(struct code *c, uint64_t v, int bytes)
{
	while (bytes--)
		emit(c, (int)(v >> (8 * bytes) & 0xff));
}

static inline void push64(struct code *c, uint64_t v)
{
	emit(c, CONST64);
	emit_be(c, v, 8);
}

/* c appended to a program at buf + off: its length, its bytes, 4-aligned; the new end. */
static inline size_t code_put(uint8_t *buf, size_t off, const struct code *c)
{
	uint32_t len = (uint32_t)c->n;

	memcpy(buf + off, &len, 4);
	memcpy(buf + off + 4, c->b, len);
	return off + 4 + ((len + 3) & ~3u);
}

/*
 * A random program: any opcode the blob runs, operands random (registers
 * 0..nregs-1); a ref only right after the push of an address inside
 * mem[0..memlen), so that nothing faults. Stack errors and division by
 * zero come up often: both must trap.
 */
static inline void agent_random_program(struct code *c, uint8_t *mem, size_t memlen, int nregs)
{
	static const int plain[] = {ADD,    SUB,     MUL,     DIV_S, DIV_U,   REM_S,
				    REM_U,  LSH,     RSH_S,   RSH_U, LOG_NOT, BIT_AND,
				    BIT_OR, BIT_XOR, BIT_NOT, EQUAL, LESS_S,  LESS_U,
				    DUP,    POP,     SWAP,    ROT};
	int n = 1 + rand() % 24;

	*c = (struct code){0};
	for (int i = 0; i < n; i++) {
		switch (rand() % 6) {
		case 0:
			push64(c,
			       (uint64_t)rand() << 33 ^ (uint64_t)rand() << 7 ^ (uint64_t)rand());
			break;
		case 1:
			emit(c, CONST8 + rand() % 3);
			emit_be(c, (uint64_t)rand(), 1 << (c->b[c->n - 1] - CONST8));
			break;
		case 2:
			push64(c, (uint64_t)(uintptr_t)&mem[rand() % (memlen - 8)]);
			emit(c, REF8 + rand() % 4);
			break;
		case 3:
			emit(c, REG);
			emit_be(c, (uint64_t)(rand() % nregs), 2);
			break;
		case 4:
			emit(c, rand() % 2 ? EXT : ZERO_EXT);
			emit(c, 1 + rand() % 64);
			break;
		default:
			emit(c, plain[rand() % (sizeof(plain) / sizeof(plain[0]))]);
			break;
		}
	}
	if (rand() % 4 == 0) {
		emit(c, PICK);
		emit(c, rand() % 4);
	}
	emit(c, END);
}

#endif
