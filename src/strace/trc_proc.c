/*
 * trc_proc.c: decoders of process life: clone, exec, exit, wait, kill,
 * and the small calls libc makes at start-up (arch_prctl, set_tid_address,
 * set_robust_list, rseq, prlimit64, getrandom), futex and the sleeps.
 */
#include <limits.h>
#include <linux/sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>

#include "trc_flags.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

static const struct xlat clone_flags[] = {
	XV(CLONE_VM),
	XV(CLONE_FS),
	XV(CLONE_FILES),
	XV(CLONE_SIGHAND),
	XV(CLONE_PIDFD),
	XV(CLONE_PTRACE),
	XV(CLONE_VFORK),
	XV(CLONE_PARENT),
	XV(CLONE_THREAD),
	XV(CLONE_NEWNS),
	XV(CLONE_SYSVSEM),
	XV(CLONE_SETTLS),
	XV(CLONE_PARENT_SETTID),
	XV(CLONE_CHILD_CLEARTID),
	/* (not CLONE_DETACHED: the kernel ignores it, strace does not name it) */
	XV(CLONE_UNTRACED),
	XV(CLONE_CHILD_SETTID),
	XV(CLONE_NEWCGROUP),
	XV(CLONE_NEWUTS),
	XV(CLONE_NEWIPC),
	XV(CLONE_NEWUSER),
	XV(CLONE_NEWPID),
	XV(CLONE_NEWNET),
	XV(CLONE_IO),
	{0x80, "CLONE_NEWTIME"}, /* clone3 only: clone's low byte is the exit signal */
	{0x100000000ull, "CLONE_CLEAR_SIGHAND"},
	{0x200000000ull, "CLONE_INTO_CGROUP"},
	XEND,
};

/* flags=CLONE_X|SIGCHLD: the low byte is the exit signal. */
static void print_clone_flags(struct trc_call *c, uint64_t flags)
{
	uint64_t sig = flags & 0xff;

	flags &= ~0xffull;
	if (flags) {
		tp_flags(c, clone_flags, flags, "CLONE_???");
		if (sig)
			buf_putc(c->b, '|');
	}
	if (sig)
		tp_signame(c, sig);
	else if (!flags)
		tp_str(c, "0");
}

static void print_tid_at(struct trc_call *c, uint64_t addr)
{
	int tid;

	if (tp_read(c, addr, &tid, sizeof(tid)))
		tp_addr(c, addr);
	else
		tp_fmt(c, "[%d]", tid);
}

/* x86-64 order: flags, stack, parent_tid, child_tid, tls. */
int trc_dec_clone(struct trc_call *c)
{
	uint64_t flags = c->a[0];

	if (!c->exiting) {
		tp_str(c, "child_stack=");
		tp_addr(c, c->a[1]);
		tp_str(c, ", flags=");
		print_clone_flags(c, flags);
		if (!(flags & (CLONE_PARENT_SETTID | CLONE_PIDFD | CLONE_CHILD_SETTID |
			       CLONE_CHILD_CLEARTID | CLONE_SETTLS)))
			return RV_DECODED;
		return 0;
	}
	if (flags & (CLONE_PARENT_SETTID | CLONE_PIDFD)) {
		tp_str(c, flags & CLONE_PIDFD ? ", pidfd=" : ", parent_tid=");
		if (tp_failed(c))
			tp_addr(c, c->a[2]);
		else
			print_tid_at(c, c->a[2]);
	}
	if (flags & CLONE_SETTLS) {
		tp_str(c, ", tls=");
		tp_addr(c, c->a[4]);
	}
	if (flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)) {
		tp_str(c, ", child_tidptr=");
		tp_addr(c, c->a[3]);
	}
	return RV_DEC;
}

/* The kernel's struct clone_args, as far as it goes (88 bytes); 64 are required. */
struct clone_args_k {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

#define CLONE_ARGS_MIN	  64
#define CLONE_ARGS_CGROUP 80
#define SET_TID_MAX	  32

/* A pid written by the kernel at addr: [N], NULL, or the address. */
static void print_tid_ptr(struct trc_call *c, uint64_t addr)
{
	if (!addr)
		tp_str(c, "NULL");
	else
		print_tid_at(c, addr);
}

static void print_set_tid(struct trc_call *c, const struct clone_args_k *ca)
{
	int tids[SET_TID_MAX];

	tp_str(c, ", set_tid=");
	if (!ca->set_tid || !ca->set_tid_size || ca->set_tid_size > SET_TID_MAX ||
	    tp_read(c, ca->set_tid, tids, ca->set_tid_size * sizeof(int))) {
		tp_addr(c, ca->set_tid);
	} else {
		for (uint64_t i = 0; i < ca->set_tid_size; i++)
			tp_fmt(c, "%s%d", i ? ", " : "[", tids[i]);
		buf_putc(c->b, ']');
	}
	tp_fmt(c, ", set_tid_size=%llu", (unsigned long long)ca->set_tid_size);
}

static void clone3_entry(struct trc_call *c, const struct clone_args_k *ca, size_t fetched)
{
	tp_str(c, "{flags=");
	tp_flags(c, clone_flags, ca->flags, "CLONE_???");
	if (ca->flags & CLONE_PIDFD) {
		tp_str(c, ", pidfd=");
		tp_addr(c, ca->pidfd);
	}
	if (ca->flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)) {
		tp_str(c, ", child_tid=");
		tp_addr(c, ca->child_tid);
	}
	if (ca->flags & CLONE_PARENT_SETTID) {
		tp_str(c, ", parent_tid=");
		tp_addr(c, ca->parent_tid);
	}
	tp_str(c, ", exit_signal=");
	if (ca->exit_signal < INT_MAX)
		tp_signame(c, ca->exit_signal);
	else
		tp_udec(c, ca->exit_signal);
	tp_str(c, ", stack=");
	tp_addr(c, ca->stack);
	tp_str(c, ", stack_size=");
	tp_hex(c, ca->stack_size);
	if (ca->flags & CLONE_SETTLS) {
		tp_str(c, ", tls=");
		tp_addr(c, ca->tls);
	}
	if (ca->set_tid || ca->set_tid_size)
		print_set_tid(c, ca);
	if (fetched > CLONE_ARGS_CGROUP && (ca->cgroup || (ca->flags & 0x200000000ull)))
		tp_fmt(c, ", cgroup=%llu", (unsigned long long)ca->cgroup);
	if (c->a[1] > fetched)
		tp_nonzero_tail(c, ", ", c->a[0], fetched, c->a[1]);
	tp_str(c, "}");
}

/* What the kernel wrote back: " => {pidfd=[N], parent_tid=[N], the tail}". */
static void clone3_exit(struct trc_call *c, const struct clone_args_k *ca, size_t fetched)
{
	const char *sep = " => {";

	if (ca->flags & CLONE_PIDFD) {
		tp_str(c, sep);
		tp_str(c, "pidfd=");
		print_tid_ptr(c, ca->pidfd);
		sep = ", ";
	}
	if (ca->flags & CLONE_PARENT_SETTID) {
		tp_str(c, sep);
		tp_str(c, "parent_tid=");
		print_tid_ptr(c, ca->parent_tid);
		sep = ", ";
	}
	if (c->a[1] > fetched && tp_nonzero_tail(c, sep, c->a[0], fetched, c->a[1]))
		sep = ", ";
	if (strcmp(sep, " => {"))
		tp_str(c, "}");
}

int trc_dec_clone3(struct trc_call *c)
{
	struct clone_args_k ca;
	size_t fetched = c->a[1] < sizeof(ca) ? (size_t)c->a[1] : sizeof(ca);

	memset(&ca, 0, sizeof(ca));
	if (!c->exiting) {
		if (fetched < CLONE_ARGS_MIN || tp_read(c, c->a[0], &ca, fetched)) {
			tp_addr(c, c->a[0]);
			goto size;
		}
		clone3_entry(c, &ca, fetched);
		if ((ca.flags & (CLONE_PIDFD | CLONE_PARENT_SETTID)) || c->a[1] > fetched)
			return 0;
		goto size;
	}
	if (tp_failed(c))
		goto size;
	if (tp_read(c, c->a[0], &ca, fetched)) {
		tp_str(c, " => ");
		tp_addr(c, c->a[0]);
		goto size;
	}
	clone3_exit(c, &ca, fetched);
size:
	tp_sep(c);
	tp_udec(c, c->a[1]);
	return RV_DECODED;
}

/* argv: ["a", "b"], at most -s strings. */
static void print_argv(struct trc_call *c, uint64_t addr)
{
	size_t ws = tp_wordsize(c);
	uint64_t p, i;

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	for (i = 0;; i++) {
		if (tp_read_word(c, addr + i * ws, &p)) {
			if (!i) {
				tp_addr(c, addr);
				return;
			}
			tp_str(c, ", ... /* ");
			tp_addr(c, addr + i * ws);
			tp_str(c, " */");
			break;
		}
		if (!p)
			break;
		buf_putc(c->b, i ? ',' : '[');
		if (i)
			buf_putc(c->b, ' ');
		if (c->abbrev && i >= c->o->strsize) {
			tp_str(c, "...");
			break;
		}
		tp_cstr(c, p);
	}
	if (!i)
		buf_putc(c->b, '[');
	buf_putc(c->b, ']');
}

static void print_envp(struct trc_call *c, uint64_t addr)
{
	size_t ws = tp_wordsize(c);
	uint64_t p, n = 0;

	if (!c->abbrev) { /* -v: the strings, as argv's */
		print_argv(c, addr);
		return;
	}
	tp_addr(c, addr);
	if (!addr)
		return;
	while (n < 100000 && tp_read_word(c, addr + n * ws, &p) == 0 && p)
		n++;
	tp_fmt(c, " /* %llu var%s */", (unsigned long long)n, n == 1 ? "" : "s");
}

int trc_dec_execve(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	print_argv(c, c->a[1]);
	tp_sep(c);
	print_envp(c, c->a[2]);
	return RV_DECODED;
}

int trc_dec_exit(struct trc_call *c)
{
	tp_int(c, c->a[0]);
	return RV_DECODED;
}

static const struct xlat wait_options[] = {
	XV(WNOHANG),	 XV(WSTOPPED), XV(WEXITED),  XV(WCONTINUED), XV(WNOWAIT),
	XV(__WNOTHREAD), XV(__WALL),   XV(__WCLONE), XEND,
};

static void print_status(struct trc_call *c, int s)
{
	const char *sig;

	buf_puts(c->b, "[{");
	if (WIFEXITED(s)) {
		tp_fmt(c, "WIFEXITED(s) && WEXITSTATUS(s) == %d", WEXITSTATUS(s));
	} else if (WIFSIGNALED(s)) {
		sig = trc_signal_name(WTERMSIG(s));
		tp_fmt(c, "WIFSIGNALED(s) && WTERMSIG(s) == %s%s", sig ? sig : "?",
		       WCOREDUMP(s) ? " && WCOREDUMP(s)" : "");
	} else if (WIFSTOPPED(s)) {
		sig = trc_signal_name(WSTOPSIG(s));
		tp_fmt(c, "WIFSTOPPED(s) && WSTOPSIG(s) == %s", sig ? sig : "?");
	} else if (WIFCONTINUED(s)) {
		tp_str(c, "WIFCONTINUED(s)");
	} else {
		tp_fmt(c, "%#x", (unsigned)s);
	}
	buf_puts(c->b, "}]");
}

/* The times; with -v every counter too. x86-64 layout (i386 prints the address). */
static void print_rusage(struct trc_call *c, uint64_t addr)
{
	static const char *const names[] = {
		"ru_maxrss", "ru_ixrss",    "ru_idrss",	  "ru_isrss",	"ru_minflt",
		"ru_majflt", "ru_nswap",    "ru_inblock", "ru_oublock", "ru_msgsnd",
		"ru_msgrcv", "ru_nsignals", "ru_nvcsw",	  "ru_nivcsw",
	};
	int64_t ru[4 + 14];

	if (!addr || c->pers != TRC_PERS_64 || tp_read(c, addr, ru, sizeof(ru))) {
		tp_addr(c, addr);
		return;
	}
	tp_fmt(c, "{ru_utime={tv_sec=%lld, tv_usec=%lld}, ru_stime={tv_sec=%lld, tv_usec=%lld}",
	       (long long)ru[0], (long long)ru[1], (long long)ru[2], (long long)ru[3]);
	if (c->abbrev) {
		tp_str(c, ", ...}");
		return;
	}
	for (size_t i = 0; i < 14; i++)
		tp_fmt(c, ", %s=%llu", names[i], (unsigned long long)ru[4 + i]);
	buf_putc(c->b, '}');
}

int trc_dec_wait4(struct trc_call *c)
{
	int status;

	if (!c->exiting) {
		tp_int(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	if (!c->a[1])
		tp_str(c, "NULL");
	else if (c->failed || c->ret == 0 || tp_read(c, c->a[1], &status, sizeof(status)))
		tp_addr(c, c->a[1]);
	else
		print_status(c, status);
	tp_sep(c);
	tp_flags(c, wait_options, (uint32_t)c->a[2], "W???");
	tp_sep(c);
	if (c->ret > 0)
		print_rusage(c, c->a[3]);
	else
		tp_addr(c, c->a[3]);
	return RV_DEC;
}

int trc_dec_kill(struct trc_call *c)
{
	tp_int(c, c->a[0]);
	tp_sep(c);
	tp_signame(c, (uint32_t)c->a[1]);
	return RV_DECODED;
}

int trc_dec_tgkill(struct trc_call *c)
{
	tp_int(c, c->a[0]);
	tp_sep(c);
	tp_int(c, c->a[1]);
	tp_sep(c);
	tp_signame(c, (uint32_t)c->a[2]);
	return RV_DECODED;
}

static const struct xlat arch_prctl_codes[] = {
	{0x1001, "ARCH_SET_GS"},
	{0x1002, "ARCH_SET_FS"},
	{0x1003, "ARCH_GET_FS"},
	{0x1004, "ARCH_GET_GS"},
	{0x1011, "ARCH_GET_CPUID"},
	{0x1012, "ARCH_SET_CPUID"},
	{0x1021, "ARCH_GET_XCOMP_SUPP"},
	{0x1022, "ARCH_GET_XCOMP_PERM"},
	{0x1023, "ARCH_REQ_XCOMP_PERM"},
	{0x1024, "ARCH_GET_XCOMP_GUEST_PERM"},
	{0x1025, "ARCH_REQ_XCOMP_GUEST_PERM"},
	{0x2001, "ARCH_MAP_VDSO_X32"},
	{0x2002, "ARCH_MAP_VDSO_32"},
	{0x2003, "ARCH_MAP_VDSO_64"},
	XEND,
};

/* The kernel's XFEATURE_MASK_* (not in its uapi headers), combined ones first. */
static const struct xlat xfeature_masks[] = {
	{0x3, "XFEATURE_MASK_FPSSE"},
	{0x1, "XFEATURE_MASK_FP"},
	{0x2, "XFEATURE_MASK_SSE"},
	{0x4, "XFEATURE_MASK_YMM"},
	{0x8, "XFEATURE_MASK_BNDREGS"},
	{0x10, "XFEATURE_MASK_BNDCSR"},
	{0xe0, "XFEATURE_MASK_AVX512"},
	{0x20, "XFEATURE_MASK_OPMASK"},
	{0x40, "XFEATURE_MASK_ZMM_Hi256"},
	{0x80, "XFEATURE_MASK_Hi16_ZMM"},
	{0x100, "XFEATURE_MASK_PT"},
	{0x200, "XFEATURE_MASK_PKRU"},
	{0x400, "XFEATURE_MASK_PASID"},
	{0x8000, "XFEATURE_MASK_LBR"},
	{0x60000, "XFEATURE_MASK_XTILE"},
	{0x20000, "XFEATURE_MASK_XTILE_CFG"},
	{0x40000, "XFEATURE_MASK_XTILE_DATA"},
	XEND,
};

static const struct xlat xfeature_bits[] = {
	{0, "XFEATURE_FP"},
	{1, "XFEATURE_SSE"},
	{2, "XFEATURE_YMM"},
	{3, "XFEATURE_BNDREGS"},
	{4, "XFEATURE_BNDCSR"},
	{5, "XFEATURE_OPMASK"},
	{6, "XFEATURE_ZMM_Hi256"},
	{7, "XFEATURE_Hi16_ZMM"},
	{8, "XFEATURE_PT_UNIMPLEMENTED_SO_FAR"},
	{9, "XFEATURE_PKRU"},
	{10, "XFEATURE_PASID"},
	{15, "XFEATURE_LBR"},
	{17, "XFEATURE_XTILE_CFG"},
	{18, "XFEATURE_XTILE_DATA"},
	XEND,
};

/* strace's "verbose" style for names the uapi lacks: 0xe7 /- NAME|NAME -/ */
static void xfeatures_verbose(struct trc_call *c, uint64_t v)
{
	struct buf tmp, *line = c->b;

	tp_hex(c, v);
	if (!v)
		return;
	buf_init(&tmp);
	c->b = &tmp;
	tp_flags(c, xfeature_masks, v, NULL);
	c->b = line;
	if (tmp.data && strncmp(tmp.data, "0x", 2))
		tp_fmt(c, " /* %s */", tmp.data);
	else
		tp_str(c, " /* XFEATURE_MASK_??? */");
	buf_free(&tmp);
}

int trc_dec_arch_prctl(struct trc_call *c)
{
	uint64_t code = (uint32_t)c->a[0], v;
	const char *name;

	if (!c->exiting) {
		tp_xval(c, arch_prctl_codes, code, "ARCH_???");
		if (code == 0x1011) /* ARCH_GET_CPUID: no argument */
			return RV_DECODED;
		tp_sep(c);
		if (code == 0x1003 || code == 0x1004 || code == 0x1021 || code == 0x1022 ||
		    code == 0x1024)
			return 0;
		if (code == 0x1023 || code == 0x1025) { /* the feature number */
			tp_hex(c, c->a[1]);
			name = xlat_name(xfeature_bits, c->a[1]);
			tp_fmt(c, " /* %s */", name ? name : "XFEATURE_???");
			return 0;
		}
		tp_hex(c, c->a[1]);
		return RV_DECODED;
	}
	if (code == 0x1023 || code == 0x1025) {
		if (c->failed || c->ret <= 0)
			return RV_DEC;
		tp_to_auxstr(c, "", xfeature_masks, (uint64_t)c->ret);
		return RV_HEX | RV_STR;
	}
	if (tp_failed(c) || tp_read(c, c->a[1], &v, sizeof(v))) {
		tp_addr(c, c->a[1]);
		return RV_DEC;
	}
	buf_putc(c->b, '[');
	if (code == 0x1003 || code == 0x1004)
		tp_addr(c, v);
	else
		xfeatures_verbose(c, v);
	buf_putc(c->b, ']');
	return RV_DEC;
}

int trc_dec_addr1(struct trc_call *c)
{
	tp_addr(c, c->a[0]);
	return RV_DECODED;
}

int trc_dec_set_robust_list(struct trc_call *c)
{
	tp_addr(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_rseq(struct trc_call *c)
{
	static const struct xlat rseq_flags[] = {{1, "RSEQ_FLAG_UNREGISTER"}, XEND};

	tp_addr(c, c->a[0]);
	tp_sep(c);
	tp_hex(c, (uint32_t)c->a[1]);
	tp_sep(c);
	tp_flags(c, rseq_flags, (uint32_t)c->a[2], "RSEQ_FLAG_???");
	tp_sep(c);
	tp_hex(c, (uint32_t)c->a[3]);
	return RV_DECODED;
}

static const struct xlat rlimits[] = {
	XV(RLIMIT_CPU),
	XV(RLIMIT_FSIZE),
	XV(RLIMIT_DATA),
	XV(RLIMIT_STACK),
	XV(RLIMIT_CORE),
	XV(RLIMIT_RSS),
	XV(RLIMIT_NPROC),
	XV(RLIMIT_NOFILE),
	XV(RLIMIT_MEMLOCK),
	XV(RLIMIT_AS),
	XV(RLIMIT_LOCKS),
	XV(RLIMIT_SIGPENDING),
	XV(RLIMIT_MSGQUEUE),
	XV(RLIMIT_NICE),
	XV(RLIMIT_RTPRIO),
	XV(RLIMIT_RTTIME),
	XEND,
};

static void print_rlim(struct trc_call *c, uint64_t v)
{
	if (v == UINT64_MAX)
		tp_str(c, "RLIM64_INFINITY");
	else if (v > 1024 && v % 1024 == 0)
		tp_fmt(c, "%llu*1024", (unsigned long long)(v / 1024));
	else
		tp_udec(c, v);
}

static void print_rlimit64(struct trc_call *c, uint64_t addr)
{
	uint64_t r[2];

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (tp_read_or_addr(c, addr, r, sizeof(r)))
		return;
	tp_str(c, "{rlim_cur=");
	print_rlim(c, r[0]);
	tp_str(c, ", rlim_max=");
	print_rlim(c, r[1]);
	buf_putc(c->b, '}');
}

int trc_dec_prlimit64(struct trc_call *c)
{
	if (!c->exiting) {
		tp_int(c, c->a[0]);
		tp_sep(c);
		tp_xval(c, rlimits, (uint32_t)c->a[1], "RLIMIT_???");
		tp_sep(c);
		print_rlimit64(c, c->a[2]);
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c))
		tp_addr(c, c->a[3]);
	else
		print_rlimit64(c, c->a[3]);
	return RV_DEC;
}

int trc_dec_getrandom(struct trc_call *c)
{
	static const struct xlat grnd_flags[] = {
		{1, "GRND_NONBLOCK"},
		{2, "GRND_RANDOM"},
		{4, "GRND_INSECURE"},
		XEND,
	};

	if (!c->exiting)
		return 0;
	if (tp_failed(c))
		tp_addr(c, c->a[0]);
	else
		tp_buf_hex(c, c->a[0], (uint64_t)c->ret);
	tp_sep(c);
	tp_udec(c, c->a[1]);
	tp_sep(c);
	tp_flags(c, grnd_flags, (uint32_t)c->a[2], "GRND_???");
	return RV_DEC;
}

static const char *const futex_cmds[] = {
	"FUTEX_WAIT",		"FUTEX_WAKE",	     "FUTEX_FD",	  "FUTEX_REQUEUE",
	"FUTEX_CMP_REQUEUE",	"FUTEX_WAKE_OP",     "FUTEX_LOCK_PI",	  "FUTEX_UNLOCK_PI",
	"FUTEX_TRYLOCK_PI",	"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
	"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
};

static void print_bitset(struct trc_call *c, uint32_t v)
{
	if (v == 0xffffffffu)
		tp_str(c, "FUTEX_BITSET_MATCH_ANY");
	else
		tp_hex(c, v);
}

static void print_timeout(struct trc_call *c, uint64_t addr)
{
	if (!addr)
		tp_str(c, "NULL");
	else
		tp_timespec_at(c, addr);
}

int trc_dec_futex(struct trc_call *c)
{
	unsigned op = (uint32_t)c->a[1], cmd = op & 127;

	tp_addr(c, c->a[0]);
	tp_sep(c);
	if (cmd < sizeof(futex_cmds) / sizeof(futex_cmds[0]) && !(op & ~(127u | 128u | 256u))) {
		tp_fmt(c, "%s%s%s", futex_cmds[cmd], op & 128 ? "_PRIVATE" : "",
		       op & 256 ? "|FUTEX_CLOCK_REALTIME" : "");
	} else {
		tp_fmt(c, "%#x /* FUTEX_??? */", op);
		return RV_DECODED;
	}
	switch (cmd) {
	case 0: /* WAIT */
		tp_fmt(c, ", %u, ", (uint32_t)c->a[2]);
		print_timeout(c, c->a[3]);
		break;
	case 6:
	case 13: /* LOCK_PI, LOCK_PI2 */
		tp_sep(c);
		print_timeout(c, c->a[3]);
		break;
	case 9: /* WAIT_BITSET */
		tp_fmt(c, ", %u, ", (uint32_t)c->a[2]);
		print_timeout(c, c->a[3]);
		tp_sep(c);
		print_bitset(c, (uint32_t)c->a[5]);
		break;
	case 10: /* WAKE_BITSET */
		tp_fmt(c, ", %u, ", (uint32_t)c->a[2]);
		print_bitset(c, (uint32_t)c->a[5]);
		break;
	case 3: /* REQUEUE */
		tp_fmt(c, ", %u, %u, ", (uint32_t)c->a[2], (uint32_t)c->a[3]);
		tp_addr(c, c->a[4]);
		break;
	case 4:
	case 12: /* CMP_REQUEUE(_PI) */
		tp_fmt(c, ", %u, %u, ", (uint32_t)c->a[2], (uint32_t)c->a[3]);
		tp_addr(c, c->a[4]);
		tp_fmt(c, ", %u", (uint32_t)c->a[5]);
		break;
	case 7:
	case 8: /* UNLOCK_PI, TRYLOCK_PI */
		break;
	default: /* WAKE, FD and the rest: one value */
		tp_fmt(c, ", %u", (uint32_t)c->a[2]);
	}
	return RV_DECODED;
}

static const struct xlat clocks[] = {
	XV(CLOCK_REALTIME),	     XV(CLOCK_MONOTONIC),     XV(CLOCK_PROCESS_CPUTIME_ID),
	XV(CLOCK_THREAD_CPUTIME_ID), XV(CLOCK_MONOTONIC_RAW), XV(CLOCK_REALTIME_COARSE),
	XV(CLOCK_MONOTONIC_COARSE),  XV(CLOCK_BOOTTIME),      XV(CLOCK_REALTIME_ALARM),
	XV(CLOCK_BOOTTIME_ALARM),    XV(CLOCK_TAI),	      XEND,
};

/* The remaining time is written only when a signal cut the sleep short. */
static void print_rem(struct trc_call *c, uint64_t addr)
{
	if (addr && c->failed && (c->ret == -4 /* EINTR */ || c->ret == -516))
		tp_timespec_at(c, addr);
	else
		tp_addr(c, addr);
}

int trc_dec_nanosleep(struct trc_call *c)
{
	if (!c->exiting) {
		tp_timespec_at(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	print_rem(c, c->a[1]);
	return RV_DEC;
}

int trc_dec_clock_nanosleep(struct trc_call *c)
{
	static const struct xlat abstime[] = {XV(TIMER_ABSTIME), XEND};

	if (!c->exiting) {
		tp_xval(c, clocks, (uint32_t)c->a[0], "CLOCK_???");
		tp_sep(c);
		tp_flags(c, abstime, (uint32_t)c->a[1], "TIMER_???");
		tp_sep(c);
		tp_timespec_at(c, c->a[2]);
		tp_sep(c);
		return 0;
	}
	print_rem(c, c->a[3]);
	return RV_DEC;
}
