/*
 * x86_siginfo.c: siginfo as the inferior sees it.
 *
 * PTRACE_GETSIGINFO hands a 64-bit tracer the native 64-bit siginfo_t
 * even for a 32-bit thread, but gdb reads $_siginfo of an i386 program in
 * the i386 layout (4-byte pointers, longs and clock_t; the union at offset
 * 12, not 16). Which union member is live depends on the signal and
 * si_code, as in the kernel's own compat conversion; we convert that
 * member both ways and keep the header.
 */
#include "../arch.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>

enum si_layout { SIL_KILL, SIL_TIMER, SIL_RT, SIL_CHLD, SIL_FAULT, SIL_POLL, SIL_SYS };

static enum si_layout layout_of(int sig, int code)
{
	if (code > SI_USER && code < SI_KERNEL) {
		switch (sig) {
		case SIGILL:
		case SIGFPE:
		case SIGSEGV:
		case SIGBUS:
		case SIGTRAP:
			return SIL_FAULT;
		case SIGCHLD:
			return SIL_CHLD;
		case SIGPOLL:
			return SIL_POLL;
		case SIGSYS:
			return SIL_SYS;
		default:
			return SIL_KILL;
		}
	}
	if (code == SI_TIMER)
		return SIL_TIMER;
	if (code == SI_SIGIO)
		return SIL_POLL;
	return code < 0 ? SIL_RT : SIL_KILL;
}

/* Offsets of each field in the two layouts: {native, i386, i386 size}. */
struct si_field {
	unsigned native, compat, size; /* size in the i386 layout (native may be wider) */
};

static const struct si_field fields[][5] = {
	[SIL_KILL] = {{16, 12, 4}, {20, 16, 4}},
	[SIL_TIMER] = {{16, 12, 4}, {20, 16, 4}, {24, 20, 4}},
	[SIL_RT] = {{16, 12, 4}, {20, 16, 4}, {24, 20, 4}},
	[SIL_CHLD] = {{16, 12, 4}, {20, 16, 4}, {24, 20, 4}, {32, 24, 4}, {40, 28, 4}},
	[SIL_FAULT] = {{16, 12, 4}, {24, 16, 2}},
	[SIL_POLL] = {{16, 12, 4}, {24, 16, 4}},
	[SIL_SYS] = {{16, 12, 4}, {24, 16, 4}, {28, 20, 4}},
};

static void convert(const uint8_t *from, uint8_t *to, bool to_compat, enum si_layout l)
{
	for (size_t i = 0; i < 5 && fields[l][i].size; i++) {
		const struct si_field *f = &fields[l][i];

		/* little-endian: the low bytes of a wider native field come first */
		if (to_compat)
			memcpy(to + f->compat, from + f->native, f->size);
		else
			memcpy(to + f->native, from + f->compat, f->size);
	}
}

static int32_t get32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

void arch_siginfo_out(const struct arch_desc *d, const void *native, uint8_t out[ARCH_SIGINFO_SIZE])
{
	const uint8_t *n = native;

	if (d->kind != ARCH_I386) {
		memcpy(out, n, ARCH_SIGINFO_SIZE);
		return;
	}
	memset(out, 0, ARCH_SIGINFO_SIZE);
	memcpy(out, n, 12); /* si_signo, si_errno, si_code */
	convert(n, out, true, layout_of(get32(n), get32(n + 8)));
}

void arch_siginfo_in(const struct arch_desc *d, const uint8_t in[ARCH_SIGINFO_SIZE], void *native)
{
	uint8_t *n = native;

	if (d->kind != ARCH_I386) {
		memcpy(n, in, ARCH_SIGINFO_SIZE);
		return;
	}
	memset(n, 0, ARCH_SIGINFO_SIZE);
	memcpy(n, in, 12);
	convert(in, n, false, layout_of(get32(in), get32(in + 8)));
}
