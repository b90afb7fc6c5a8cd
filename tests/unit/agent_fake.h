/*
 * agent_fake.h: a fake stopped thread for the agent expression tests
 * (agent_expr_test.c, agent_parse_test.c): a few memory regions, a
 * register file and a print buffer behind a struct agent_env.
 *
 * The state is the one gdb and gdbserver saw at the hit of
 * `break f if x == 3` in this program, built with gcc -g -O0 (Debian 12,
 * gdb 13.1), with the bytes gdb's `x/xb` printed there:
 *
 *     struct s { int a; short b; unsigned char c; long long d; };
 *     struct s gs = { -5, 7, 200, 1LL << 40 };
 *     int garr[4] = { 10, 20, 30, 40 };
 *     char *gstr = "hello";
 *     volatile int sink;
 *     int f(int x, unsigned u, long l, char ch)
 *     {
 *             sink += x + u + l + ch;         <- breakpoint, line 9
 *             return sink;                    <- line 10
 *     }
 *     int main(void)
 *     {
 *             for (int i = 0; i < 6; i++)
 *                     f(i, i * 2u, -(long)i, 'a' + i);
 *     }
 *
 * x=3 u=6 l=-3 ch='d' live at rbp-4, rbp-8, rbp-16 and rbp-20; sink is
 * 300 (the sum of the earlier calls).
 */
#ifndef UTRACED_AGENT_FAKE_H
#define UTRACED_AGENT_FAKE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent.h"

#define FAKE_RBP    0x7fffffffe660ull
#define FAKE_X	    (FAKE_RBP - 4)
#define FAKE_U	    (FAKE_RBP - 8)
#define FAKE_STACK  0x7fffffffe640ull
#define FAKE_GS	    0x555555558010ull
#define FAKE_SINK   0x55555555803cull
#define FAKE_STR    0x555555556004ull
#define FAKE_NREGS  24
#define FAKE_PRINTS 8192

struct fake_region {
	uint64_t addr;
	uint8_t bytes[96];
	size_t len;
};

struct fake {
	struct fake_region mem[4];
	uint64_t regs[FAKE_NREGS];
	int mem_calls, reg_calls;
	size_t max_read; /* largest read asked for */
	int mem_rc;	 /* forced read_mem return when non-zero */
	char out[FAKE_PRINTS];
	size_t outlen;
	int print_rc;
};

static inline int fake_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;

	f->mem_calls++;
	if (len > f->max_read)
		f->max_read = len;
	if (f->mem_rc)
		return f->mem_rc;
	for (int i = 0; i < 4; i++) {
		struct fake_region *r = &f->mem[i];

		if (addr >= r->addr && addr - r->addr <= r->len &&
		    len <= r->len - (addr - r->addr)) {
			memcpy(buf, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -EFAULT;
}

static inline int fake_read_reg(void *ctx, int regnum, uint64_t *val)
{
	struct fake *f = ctx;

	f->reg_calls++;
	if (regnum < 0 || regnum >= FAKE_NREGS)
		return -EINVAL;
	*val = f->regs[regnum];
	return 0;
}

static inline int fake_print(void *ctx, const char *text, size_t len)
{
	struct fake *f = ctx;

	if (f->print_rc)
		return f->print_rc;
	if (len > sizeof(f->out) - 1 - f->outlen)
		return -ENOSPC;
	memcpy(f->out + f->outlen, text, len);
	f->outlen += len;
	f->out[f->outlen] = '\0';
	return 0;
}

/* Set the region at addr to the bytes given as hex. */
static inline void fake_region(struct fake_region *r, uint64_t addr, const char *hex)
{
	r->addr = addr;
	r->len = strlen(hex) / 2;
	for (size_t i = 0; i < r->len; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		r->bytes[i] = (uint8_t)v;
	}
}

/* The thread at the x == 3 hit, and an env reaching it. */
static inline void fake_init(struct fake *f, struct agent_env *env)
{
	memset(f, 0, sizeof(*f));
	/* 0x7fffffffe640..0x7fffffffe6a0: f's frame and main's. */
	fake_region(&f->mem[0], FAKE_STACK,
		    "0000000000000000" /* e640 */
		    "0000000064000000" /* e648: ch at e64c */
		    "fdffffffffffffff" /* e650: l */
		    "0600000003000000" /* e658: u, x */
		    "80e6ffffff7f0000" /* e660: saved rbp */
		    "a051555555550000" /* e668: return address */
		    "0000000000000000" /* e670 */
		    "d0dafff703000000" /* e678 */
		    "0100000000000000" /* e680 */
		    "4aa2dff7ff7f0000" /* e688 */
		    "80e7ffffff7f0000" /* e690 */
		    "6651555555550000" /* e698 */);
	/* 0x555555558010..0x555555558040: gs, garr, gstr, completed.0, sink. */
	fake_region(&f->mem[1], FAKE_GS,
		    "fbffffff0700c800" /* gs.a, gs.b, gs.c */
		    "0000000000010000" /* gs.d */
		    "0a00000014000000" /* garr */
		    "1e00000028000000"
		    "0460555555550000" /* gstr */
		    "000000002c010000" /* completed.0, sink */);
	/* The string gstr points to: "hello". */
	fake_region(&f->mem[2], FAKE_STR, "68656c6c6f000000");
	f->regs[0] = 0x64;		 /* rax */
	f->regs[1] = 0x7fffffffe798;	 /* rbx */
	f->regs[2] = 0x64;		 /* rcx */
	f->regs[3] = 0xfffffffffffffffd; /* rdx */
	f->regs[4] = 6;			 /* rsi */
	f->regs[5] = 3;			 /* rdi */
	f->regs[6] = FAKE_RBP;		 /* rbp */
	f->regs[7] = FAKE_RBP;		 /* rsp */
	f->regs[16] = 0x55555555513c;	 /* rip: f+19 */
	f->regs[17] = 0x293;		 /* eflags */
	*env = (struct agent_env){.ctx = f,
				  .read_mem = fake_read_mem,
				  .read_reg = fake_read_reg,
				  .print = fake_print};
}

/* Overwrite the 4-byte little-endian int at addr in the fake's memory. */
static inline void fake_poke32(struct fake *f, uint64_t addr, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		struct fake_region *r = &f->mem[i];

		if (addr >= r->addr && addr + 4 <= r->addr + r->len) {
			for (int b = 0; b < 4; b++)
				r->bytes[addr - r->addr + b] = (uint8_t)(v >> (8 * b));
			return;
		}
	}
}

/* Decode hex into a buffer; returns the length. */
static inline size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n && i < max; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n < max ? n : max;
}

#endif
