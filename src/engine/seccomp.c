/*
 * seccomp.c: --seccomp-bpf, stops only at the syscalls someone watches.
 *
 * A program we launch may carry a seccomp filter, installed between our
 * PTRACE_SEIZE and its execve(): SECCOMP_RET_TRACE for the syscalls of the
 * set, SECCOMP_RET_ALLOW for the others. With PTRACE_O_TRACESECCOMP the
 * kernel then stops the thread (PTRACE_EVENT_SECCOMP) at a traced syscall
 * only, and we may resume with PTRACE_CONT instead of PTRACE_SYSCALL: an
 * untraced syscall costs no stop at all. The seccomp stop counts as the
 * syscall's entry; from it we resume with PTRACE_SYSCALL to get its exit,
 * then PTRACE_CONT again (syscall.c).
 *
 * The filter is inherited by every child and cannot be taken away: a
 * syscall that returns SECCOMP_RET_TRACE with no tracer (or a tracer
 * without PTRACE_O_TRACESECCOMP) fails with ENOSYS. So a process with the
 * filter must stay traced (fork.c keeps its children) and is marked
 * (engine_seccomp) so that whoever leaves it knows.
 *
 * Only engine_launch() installs a filter: the daemon attaches to programs
 * that exist already, and its gdb clients catch any syscall at any time,
 * which a filter fixed at exec cannot follow. PTRACE_CONT is used only
 * while every engine's syscall set lies inside the filter's.
 */
#include "engine_int.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>

struct bpf_out {
	struct sock_filter *f;
	size_t n, max;
	bool overflow;
};

static void emit(struct bpf_out *o, uint16_t code, size_t jt, size_t jf, uint32_t k)
{
	if (jt > 255 || jf > 255)
		o->overflow = true; /* BPF's conditional jumps reach 255 ahead at most */
	if (o->n < o->max)
		o->f[o->n] = (struct sock_filter){code, (uint8_t)jt, (uint8_t)jf, k};
	else
		o->overflow = true;
	o->n++;
}

/* Runs of traced numbers: [lo[i], hi[i]). Returns their count. */
static size_t runs_of(const struct sysset *s, uint32_t *lo, uint32_t *hi)
{
	size_t n = 0;

	for (uint32_t nr = 0; nr < SYSSET_BITS; nr++) {
		bool in = (s->bits[nr / 64] >> (nr % 64)) & 1;

		if (!in)
			continue;
		if (n && hi[n - 1] == nr) {
			hi[n - 1] = nr + 1;
			continue;
		}
		lo[n] = nr;
		hi[n++] = nr + 1;
	}
	return n;
}

/*
 * One ABI's part: if arch matches, decide; else fall through to the next
 * part with the arch still in A. Ending in "RET ALLOW; RET TRACE", every
 * jump inside goes forward to one of those two or past them.
 *
 * linear: one or two compares per run of numbers, cheapest for short sets
 * (-e trace=write is 1 compare); else a bitmap word per 32 numbers, which
 * fits any set (the jumps of a long linear part would not reach).
 */
static void emit_part(struct bpf_out *o, const struct arch_abi *abi, const struct sysset *s,
		      bool linear)
{
	static uint32_t lo[SYSSET_BITS], hi[SYSSET_BITS];
	size_t nruns = runs_of(s, lo, hi), words = 0, body, start = o->n, end;

	for (uint32_t nr = 0; nr < SYSSET_BITS; nr++)
		if ((s->bits[nr / 64] >> (nr % 64)) & 1)
			words = nr / 32 + 1;
	body = 0;
	for (size_t i = 0; i < nruns; i++)
		body += hi[i] - lo[i] == 1 ? 1 : 2;
	if (!linear)
		body = 7 + 3 * words;
	/* after the arch compare: load nr, (x32 check), body, RET ALLOW, RET TRACE */
	end = start + 1 + 1 + (abi->foreign_bit ? 1 : 0) + body + 2;
#define TO_ALLOW (end - 2 - o->n - 1)
#define TO_TRACE (end - 1 - o->n - 1)
#define TO_NEXT	 (end - o->n - 1)
	emit(o, BPF_JMP | BPF_JEQ | BPF_K, 0, TO_NEXT, abi->audit_arch);
	emit(o, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	if (abi->foreign_bit) /* we do not know x32's numbers: the engine sees those and decides */
		emit(o, BPF_JMP | BPF_JGE | BPF_K, TO_TRACE, 0, abi->foreign_bit);
	if (linear) {
		for (size_t i = 0; i < nruns; i++) {
			if (hi[i] - lo[i] == 1) {
				emit(o, BPF_JMP | BPF_JEQ | BPF_K, TO_TRACE, 0, lo[i]);
				continue;
			}
			emit(o, BPF_JMP | BPF_JGE | BPF_K, 0, 1, lo[i]);
			emit(o, BPF_JMP | BPF_JGE | BPF_K, 0, TO_TRACE, hi[i]);
		}
	} else {
		/* X = 1 << (nr % 32), A = nr / 32; then the word's bits */
		emit(o, BPF_ALU | BPF_AND | BPF_K, 0, 0, 31);
		emit(o, BPF_MISC | BPF_TAX, 0, 0, 0);
		emit(o, BPF_LD | BPF_IMM, 0, 0, 1);
		emit(o, BPF_ALU | BPF_LSH | BPF_X, 0, 0, 0);
		emit(o, BPF_MISC | BPF_TAX, 0, 0, 0);
		emit(o, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
		emit(o, BPF_ALU | BPF_RSH | BPF_K, 0, 0, 5);
		/* numbers past the last word fall through to ALLOW: not in the set */
		for (size_t w = 0; w < words; w++) {
			uint32_t bits = (uint32_t)(s->bits[w / 2] >> (32 * (w % 2)));

			emit(o, BPF_JMP | BPF_JEQ | BPF_K, 0, 2, (uint32_t)w);
			emit(o, BPF_MISC | BPF_TXA, 0, 0, 0);
			emit(o, BPF_JMP | BPF_JSET | BPF_K, TO_TRACE, TO_ALLOW, bits);
		}
	}
	emit(o, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
	emit(o, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_TRACE);
#undef TO_ALLOW
#undef TO_TRACE
#undef TO_NEXT
}

static size_t build(struct bpf_out *o, const struct sysset sets[2], bool linear)
{
	o->n = 0;
	o->overflow = false;
	emit(o, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
	for (unsigned i = 0; i < arch_nabis && i < 2; i++)
		emit_part(o, &arch_abis[i], &sets[i], linear);
	/* any other ABI: stop, and let the engine see it */
	emit(o, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_TRACE);
	return o->overflow ? 0 : o->n;
}

int seccomp_build(const struct sysset sets[2], struct sock_filter *out, size_t max)
{
	struct bpf_out o = {out, 0, max, false};
	size_t n = build(&o, sets, true);

	if (!n)
		n = build(&o, sets, false);
	return n ? (int)n : -E2BIG;
}

bool seccomp_available(void)
{
	/* a NULL program: EFAULT where filters exist, EINVAL where they do not */
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) < 0 && errno == EFAULT;
}

int seccomp_install(const struct sock_filter *f, size_t n)
{
	struct sock_fprog prog = {(unsigned short)n, (struct sock_filter *)f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}

void seccomp_sets(struct sysset sets[2], const struct engine_seccomp *sc)
{
	memset(sets, 0, 2 * sizeof(*sets));
	for (size_t i = 0; i < sc->n64; i++)
		if (sc->nrs64[i] >= 0 && sc->nrs64[i] < SYSSET_BITS)
			sets[0].bits[sc->nrs64[i] / 64] |= 1ULL << (sc->nrs64[i] % 64);
	for (size_t i = 0; i < sc->n32; i++)
		if (sc->nrs32[i] >= 0 && sc->nrs32[i] < SYSSET_BITS)
			sets[1].bits[sc->nrs32[i] / 64] |= 1ULL << (sc->nrs32[i] % 64);
	sets[0].on = sets[1].on = true;
}

bool engine_seccomp(const struct engine *e)
{
	return e->p->seccomp;
}
