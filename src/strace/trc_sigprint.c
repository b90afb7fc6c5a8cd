/*
 * trc_sigprint.c: signal names, signal sets and siginfo, as strace prints them.
 *
 * Numbers are the kernel's (x86 has the same ones for i386 and x86-64).
 * Real-time signals print as the kernel numbers them, not as libc does:
 * 32 is SIGRTMIN and 33 SIGRT_1, because libc keeps 32 and 33 for itself
 * and moves its own SIGRTMIN to 34. A set is printed inverted (~[...])
 * when two thirds or more of its bits are set, which is how strace keeps
 * "all but" masks short.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_int.h"

#define KSIGRTMIN 32
#define KSIGRTMAX 64

static const char *const signames[] = {
	[SIGHUP] = "SIGHUP",	   [SIGINT] = "SIGINT",	      [SIGQUIT] = "SIGQUIT",
	[SIGILL] = "SIGILL",	   [SIGTRAP] = "SIGTRAP",     [SIGABRT] = "SIGABRT",
	[SIGBUS] = "SIGBUS",	   [SIGFPE] = "SIGFPE",	      [SIGKILL] = "SIGKILL",
	[SIGUSR1] = "SIGUSR1",	   [SIGSEGV] = "SIGSEGV",     [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE",	   [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM",
	[SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD",     [SIGCONT] = "SIGCONT",
	[SIGSTOP] = "SIGSTOP",	   [SIGTSTP] = "SIGTSTP",     [SIGTTIN] = "SIGTTIN",
	[SIGTTOU] = "SIGTTOU",	   [SIGURG] = "SIGURG",	      [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ",	   [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH",   [SIGIO] = "SIGIO",	      [SIGPWR] = "SIGPWR",
	[SIGSYS] = "SIGSYS",	   [KSIGRTMIN] = "SIGRTMIN",
};

/* "SIGRT_%u" for the real-time signals past SIGRTMIN. */
static const char *const rtnames[] = {
	"SIGRT_1",  "SIGRT_2",	"SIGRT_3",  "SIGRT_4",	"SIGRT_5",  "SIGRT_6",	"SIGRT_7",
	"SIGRT_8",  "SIGRT_9",	"SIGRT_10", "SIGRT_11", "SIGRT_12", "SIGRT_13", "SIGRT_14",
	"SIGRT_15", "SIGRT_16", "SIGRT_17", "SIGRT_18", "SIGRT_19", "SIGRT_20", "SIGRT_21",
	"SIGRT_22", "SIGRT_23", "SIGRT_24", "SIGRT_25", "SIGRT_26", "SIGRT_27", "SIGRT_28",
	"SIGRT_29", "SIGRT_30", "SIGRT_31", "SIGRT_32",
};

const char *trc_signal_name(int sig)
{
	if (sig > 0 && sig < (int)(sizeof(signames) / sizeof(signames[0])) && signames[sig])
		return signames[sig];
	if (sig > KSIGRTMIN && sig <= KSIGRTMAX)
		return rtnames[sig - KSIGRTMIN - 1];
	return NULL;
}

int trc_signal_nr(const char *name)
{
	char *end;
	long n = strtol(name, &end, 10);
	int sig;

	if (*name && !*end)
		return n > 0 && n <= KSIGRTMAX ? (int)n : -1;
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (sig = 1; sig <= KSIGRTMAX; sig++) {
		const char *s = trc_signal_name(sig);

		if (s && strcasecmp(s + 3, name) == 0)
			return sig;
	}
	return -1;
}

void tp_signame(struct trc_call *c, uint64_t arg)
{
	const char *name = trc_signal_name((int)arg);

	if (name)
		tp_str(c, name);
	else
		tp_int(c, arg);
}

/* nwords 64-bit words of a kernel sigset (bit n-1 is signal n). */
void tp_sigset_bits(struct trc_call *c, const uint64_t *words, unsigned nwords)
{
	unsigned nbits = nwords * 64, set = 0, i;
	bool invert;
	char sep = '[';

	for (i = 0; i < nbits; i++)
		set += (words[i / 64] >> (i % 64)) & 1;
	invert = set >= nbits * 2 / 3;
	if (invert)
		buf_putc(c->b, '~');
	for (i = 0; i < nbits; i++) {
		bool bit = (words[i / 64] >> (i % 64)) & 1;
		const char *name;

		if (bit == invert)
			continue;
		buf_putc(c->b, sep);
		sep = ' ';
		name = trc_signal_name((int)i + 1);
		if (name)
			tp_str(c, name + 3);
		else
			tp_fmt(c, "%u", i + 1);
	}
	if (sep == '[')
		buf_putc(c->b, '[');
	buf_putc(c->b, ']');
}

void tp_sigset_at(struct trc_call *c, uint64_t addr, uint64_t size)
{
	uint64_t words[2] = {0, 0};
	uint32_t w32;

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (size == 4) { /* a 32-bit old_sigset_t */
		if (tp_read_or_addr(c, addr, &w32, 4))
			return;
		words[0] = w32;
		tp_sigset_bits(c, words, 1);
		return;
	}
	if (size != 8 && size != 16) {
		tp_addr(c, addr);
		return;
	}
	if (tp_read_or_addr(c, addr, words, size))
		return;
	/* Only the kernel's 64 signals count: a 64-bit mask. */
	tp_sigset_bits(c, words, 1);
}

static const struct xlat si_codes[] = {
	XV(SI_USER),	XV(SI_KERNEL), XV(SI_QUEUE), XV(SI_TIMER), XV(SI_MESGQ),
	XV(SI_ASYNCIO), XV(SI_SIGIO),  XV(SI_TKILL), XEND,
};

static const struct xlat chld_codes[] = {
	XV(CLD_EXITED),	 XV(CLD_KILLED),    XV(CLD_DUMPED), XV(CLD_TRAPPED),
	XV(CLD_STOPPED), XV(CLD_CONTINUED), XEND,
};

static const struct xlat segv_codes[] = {
	XV(SEGV_MAPERR), XV(SEGV_ACCERR), XV(SEGV_BNDERR), XV(SEGV_PKUERR), XEND,
};

static const struct xlat bus_codes[] = {
	XV(BUS_ADRALN), XV(BUS_ADRERR), XV(BUS_OBJERR), XV(BUS_MCEERR_AR), XV(BUS_MCEERR_AO), XEND,
};

static const struct xlat ill_codes[] = {
	XV(ILL_ILLOPC), XV(ILL_ILLOPN), XV(ILL_ILLADR), XV(ILL_ILLTRP), XV(ILL_PRVOPC),
	XV(ILL_PRVREG), XV(ILL_COPROC), XV(ILL_BADSTK), XEND,
};

static const struct xlat fpe_codes[] = {
	XV(FPE_INTDIV), XV(FPE_INTOVF), XV(FPE_FLTDIV), XV(FPE_FLTOVF), XV(FPE_FLTUND),
	XV(FPE_FLTRES), XV(FPE_FLTINV), XV(FPE_FLTSUB), XEND,
};

static const struct xlat trap_codes[] = {
	XV(TRAP_BRKPT), XV(TRAP_TRACE), XV(TRAP_BRANCH), XV(TRAP_HWBKPT), XEND,
};

static const struct xlat poll_codes[] = {
	XV(POLL_IN), XV(POLL_OUT), XV(POLL_MSG), XV(POLL_ERR), XV(POLL_PRI), XV(POLL_HUP), XEND,
};

static const struct xlat *codes_of(int sig)
{
	switch (sig) {
	case SIGCHLD:
		return chld_codes;
	case SIGSEGV:
		return segv_codes;
	case SIGBUS:
		return bus_codes;
	case SIGILL:
		return ill_codes;
	case SIGFPE:
		return fpe_codes;
	case SIGTRAP:
		return trap_codes;
	case SIGIO:
		return poll_codes;
	}
	return NULL;
}

static void print_code(struct trc_call *c, const siginfo_t *si)
{
	const char *name = xlat_name(si_codes, (uint64_t)(int64_t)si->si_code);

	if (!name && si->si_code > 0 && codes_of(si->si_signo))
		name = xlat_name(codes_of(si->si_signo), (uint64_t)si->si_code);
	if (name)
		tp_str(c, name);
	else
		tp_fmt(c, "%#x", (unsigned)si->si_code);
}

static void print_source(struct trc_call *c, const siginfo_t *si)
{
	tp_fmt(c, ", si_pid=%d, si_uid=%u", si->si_pid, (unsigned)si->si_uid);
}

static void print_sigval(struct trc_call *c, const siginfo_t *si)
{
	tp_fmt(c, ", si_int=%d, si_ptr=", si->si_int);
	tp_addr(c, (uint64_t)(uintptr_t)si->si_ptr);
}

static void print_user_info(struct trc_call *c, const siginfo_t *si)
{
	switch (si->si_code) {
	case SI_USER:
	case SI_TKILL:
		print_source(c, si);
		break;
	case SI_TIMER:
		tp_fmt(c, ", si_timerid=%#x, si_overrun=%d", (unsigned)si->si_timerid,
		       si->si_overrun);
		print_sigval(c, si);
		break;
	case SI_SIGIO:
		tp_fmt(c, ", si_band=%ld, si_fd=%d", si->si_band, si->si_fd);
		break;
	default:
		print_source(c, si);
		if (si->si_ptr)
			print_sigval(c, si);
	}
}

/* A child's CPU time in clock ticks (USER_HZ, 100 on x86), as strace: "12 /- 0.12 s -/". */
static void print_ticks(struct trc_call *c, const char *name, long ticks)
{
	tp_fmt(c, "%s%ld", name, ticks);
	if (ticks > 0)
		tp_fmt(c, " /* %ld.%02ld s */", ticks / 100, ticks % 100);
}

static void print_kernel_info(struct trc_call *c, const siginfo_t *si)
{
	switch (si->si_signo) {
	case SIGCHLD:
		print_source(c, si);
		if (si->si_code == CLD_EXITED)
			tp_fmt(c, ", si_status=%d", si->si_status);
		else {
			tp_str(c, ", si_status=");
			tp_signame(c, (uint64_t)si->si_status);
		}
		print_ticks(c, ", si_utime=", (long)si->si_utime);
		print_ticks(c, ", si_stime=", (long)si->si_stime);
		break;
	case SIGILL:
	case SIGFPE:
	case SIGBUS:
	case SIGSEGV:
	case SIGTRAP:
		tp_str(c, ", si_addr=");
		tp_addr(c, (uint64_t)(uintptr_t)si->si_addr);
		break;
	case SIGIO: /* the band and fd only with a POLL_ code */
		if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP)
			tp_fmt(c, ", si_band=%ld, si_fd=%d", si->si_band, si->si_fd);
		break;
	case SIGSYS:
		tp_str(c, ", si_call_addr=");
		tp_addr(c, (uint64_t)(uintptr_t)si->si_call_addr);
		tp_fmt(c, ", si_syscall=%d, si_arch=%#x", si->si_syscall, si->si_arch);
		break;
	default: /* SI_KERNEL and the like: a sender only when there is one */
		if (si->si_pid || si->si_uid)
			print_source(c, si);
		if (si->si_ptr)
			print_sigval(c, si);
	}
}

void tp_siginfo(struct trc_call *c, const siginfo_t *si)
{
	buf_putc(c->b, '{');
	if (si->si_signo) {
		tp_str(c, "si_signo=");
		tp_signame(c, (uint64_t)si->si_signo);
		tp_str(c, ", si_code=");
		print_code(c, si);
		if (si->si_errno)
			tp_fmt(c, ", si_errno=%s",
			       trc_errno_name(si->si_errno) ? trc_errno_name(si->si_errno) : "?");
		if (si->si_code <= 0)
			print_user_info(c, si);
		else
			print_kernel_info(c, si);
	}
	buf_putc(c->b, '}');
}

void tp_siginfo_at(struct trc_call *c, uint64_t addr)
{
	siginfo_t si;

	if (c->pers == TRC_PERS_32) { /* compat_siginfo layout: not decoded */
		tp_addr(c, addr);
		return;
	}
	if (tp_read_or_addr(c, addr, &si, sizeof(si)))
		return;
	tp_siginfo(c, &si);
}
