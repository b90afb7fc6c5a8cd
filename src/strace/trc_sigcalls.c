/*
 * trc_sigcalls.c: decoders of the signal syscalls: rt_sigaction,
 * rt_sigprocmask, rt_sigsuspend, rt_sigreturn.
 *
 * The kernel's struct sigaction (not libc's) is what the tracee passes:
 * handler, flags, restorer, then a 64-bit mask. rt_sigreturn has no
 * arguments; strace shows the mask it restores, which sits in the signal
 * frame at the stack pointer.
 */
#include <signal.h>

#include "trc_int.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* Where uc_sigmask is in the kernel's x86-64 ucontext: 40 + sizeof(struct sigcontext). */
#define UC_SIGMASK_64 296

static const struct xlat sa_flags[] = {
	XV(SA_RESTORER), XV(SA_ONSTACK),   XV(SA_RESTART),   XV(SA_NODEFER), XV(SA_RESETHAND),
	XV(SA_SIGINFO),	 XV(SA_NOCLDSTOP), XV(SA_NOCLDWAIT), XEND,
};

static const struct xlat sig_handlers[] = {
	{0, "SIG_DFL"},
	{1, "SIG_IGN"},
	XEND,
};

static void print_sigaction(struct trc_call *c, uint64_t addr)
{
	uint64_t ka[4]; /* handler, flags, restorer, mask */

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (c->pers == TRC_PERS_32 || tp_read(c, addr, ka, sizeof(ka))) {
		tp_addr(c, addr);
		return;
	}
	tp_str(c, "{sa_handler=");
	if (xlat_name(sig_handlers, ka[0]))
		tp_str(c, xlat_name(sig_handlers, ka[0]));
	else
		tp_addr(c, ka[0]);
	tp_str(c, ", sa_mask=");
	tp_sigset_bits(c, &ka[3], 1);
	tp_str(c, ", sa_flags=");
	tp_flags(c, sa_flags, ka[1], "SA_???");
	if (ka[1] & SA_RESTORER) {
		tp_str(c, ", sa_restorer=");
		tp_addr(c, ka[2]);
	}
	buf_putc(c->b, '}');
}

int trc_dec_rt_sigaction(struct trc_call *c)
{
	if (!c->exiting) {
		tp_signame(c, c->a[0]);
		tp_sep(c);
		print_sigaction(c, c->a[1]);
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c))
		tp_addr(c, c->a[2]);
	else
		print_sigaction(c, c->a[2]);
	tp_sep(c);
	tp_udec(c, c->a[3]);
	return RV_DEC;
}

static const struct xlat sigprocmask_how[] = {
	XV(SIG_BLOCK),
	XV(SIG_UNBLOCK),
	XV(SIG_SETMASK),
	XEND,
};

int trc_dec_rt_sigprocmask(struct trc_call *c)
{
	if (!c->exiting) {
		tp_xval(c, sigprocmask_how, (uint32_t)c->a[0], "SIG_???");
		tp_sep(c);
		tp_sigset_at(c, c->a[1], c->a[3]);
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c))
		tp_addr(c, c->a[2]);
	else
		tp_sigset_at(c, c->a[2], c->a[3]);
	tp_sep(c);
	tp_udec(c, c->a[3]);
	return RV_DEC;
}

/* The set only when its size is one the kernel takes (a word, up to 64 signals), as strace. */
int trc_dec_rt_sigsuspend(struct trc_call *c)
{
	uint64_t size = c->a[1];

	if (size == 8 || (size == 4 && c->pers == TRC_PERS_32))
		tp_sigset_at(c, c->a[0], size);
	else
		tp_addr(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, size);
	return RV_DECODED;
}

int trc_dec_rt_sigreturn(struct trc_call *c)
{
	uint64_t mask;

	if (!c->rd->sp || c->pers != TRC_PERS_64)
		return RV_DECODED;
	if (tp_read(c, c->rd->sp(c->rd->ctx) + UC_SIGMASK_64, &mask, sizeof(mask)))
		return RV_DECODED;
	tp_str(c, "{mask=");
	tp_sigset_bits(c, &mask, 1);
	buf_putc(c->b, '}');
	return RV_DECODED;
}

/* After an attach or a signal, a sleep goes on as restart_syscall. */
int trc_dec_restart_syscall(struct trc_call *c)
{
	const char *prev = c->prev_nr >= 0 ? trc_syscall_name(c->pers, c->prev_nr) : NULL;

	tp_fmt(c, "<... resuming interrupted %s ...>", prev ? prev : "system call");
	return RV_DECODED;
}
