/*
 * --seccomp-bpf's filter (src/engine/seccomp.c), run by a small classic-BPF
 * interpreter of the instructions it uses, for every syscall number of
 * both ABIs, x32 numbers and a foreign ABI: the filter must stop
 * (SECCOMP_RET_TRACE) exactly at the set's syscalls of the caller's ABI,
 * never read an x32 number as an x86-64 one, and stop at whatever it
 * does not know. Short sets get the linear form, long ones the bitmap.
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "tap.h"

static struct sock_filter prog[BPF_MAXINSNS];

/* Returns the filter's verdict, or 0xdead on an instruction it should not use. */
static uint32_t run(const struct sock_filter *f, size_t n, uint32_t arch, uint32_t nr)
{
	struct seccomp_data d = {.nr = (int)nr, .arch = arch};
	uint32_t a = 0, x = 0;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k + 4 > sizeof(d))
				return 0xdead;
			memcpy(&a, (const char *)&d + i->k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = i->k;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_ALU | BPF_RSH | BPF_K:
			a >>= i->k;
			break;
		case BPF_ALU | BPF_LSH | BPF_X:
			a <<= x;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & i->k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			return 0xdead;
		}
	}
	return 0xdead; /* ran off the end: the kernel would refuse the program */
}

static void put(struct sysset *s, unsigned nr)
{
	s->bits[nr / 64] |= 1ULL << (nr % 64);
}

static bool has(const struct sysset *s, unsigned nr)
{
	return nr < SYSSET_BITS && (s->bits[nr / 64] >> (nr % 64)) & 1;
}

/* Every verdict of the filter for sets, against what it should be. */
static void check(const char *what, struct sysset sets[2], int max_len)
{
	int n = seccomp_build(sets, prog, BPF_MAXINSNS);
	unsigned bad = 0;
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: a program of %d instructions", what, n);
	ok(n > 0 && n <= max_len, "%s", msg);
	if (n <= 0)
		return;
	for (uint32_t nr = 0; nr < SYSSET_BITS + 64; nr++) {
		uint32_t want64 = has(&sets[0], nr) ? SECCOMP_RET_TRACE : SECCOMP_RET_ALLOW;
		uint32_t want32 = has(&sets[1], nr) ? SECCOMP_RET_TRACE : SECCOMP_RET_ALLOW;

		bad += run(prog, (size_t)n, AUDIT_ARCH_X86_64, nr) != want64;
		bad += run(prog, (size_t)n, AUDIT_ARCH_I386, nr) != want32;
		/* x32: the same small numbers with bit 30, never allowed unseen */
		bad += run(prog, (size_t)n, AUDIT_ARCH_X86_64, nr | 0x40000000u) !=
		       SECCOMP_RET_TRACE;
		bad += run(prog, (size_t)n, AUDIT_ARCH_AARCH64, nr) != SECCOMP_RET_TRACE;
	}
	bad += run(prog, (size_t)n, AUDIT_ARCH_I386, 0xffffffffu) != SECCOMP_RET_ALLOW;
	is_int(bad, 0, "%s: every verdict right (x86-64, i386, x32, other ABI)", what);
}

int main(void)
{
	struct sysset sets[2];
	struct engine_seccomp sc;
	long n64[] = {1}, n32[] = {4, 5, 6, 7, 2000, -1};

	sc = (struct engine_seccomp){n64, 1, n32, 6};
	seccomp_sets(sets, &sc);
	check("write (1) / i386 write..close (4-7)", sets, 16);

	memset(sets, 0, sizeof(sets));
	check("an empty set", sets, 16);

	/* all but write: two runs */
	memset(sets, 0, sizeof(sets));
	for (unsigned nr = 0; nr < 460; nr++) {
		if (nr != 1)
			put(&sets[0], nr);
		if (nr != 4)
			put(&sets[1], nr);
	}
	check("all but write", sets, 20);

	/* every third number left out: too many runs for 8-bit jumps */
	memset(sets, 0, sizeof(sets));
	for (unsigned nr = 0; nr < 460; nr++)
		if (nr % 3) {
			put(&sets[0], nr);
			put(&sets[1], nr);
		}
	check("two of every three (bitmap form)", sets, 120);

	/* the set's edges: the last number a set may hold */
	memset(sets, 0, sizeof(sets));
	put(&sets[0], 0);
	put(&sets[0], SYSSET_BITS - 1);
	put(&sets[1], 63);
	put(&sets[1], 64);
	check("edges (0, 1023; 63-64)", sets, 20);

	srand(1);
	for (int r = 0; r < 20; r++) {
		char what[64];

		memset(sets, 0, sizeof(sets));
		for (int k = rand() % 300; k > 0; k--)
			put(&sets[rand() % 2], (unsigned)(rand() % 500));
		snprintf(what, sizeof(what), "random set %d", r);
		check(what, sets, BPF_MAXINSNS);
	}
	return done_testing();
}
