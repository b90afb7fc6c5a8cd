/*
 * syscall.c: syscall stops, and observers (tracers that never stop).
 *
 * Two kinds of engine hear about syscalls. A stop-mode engine (gdb's
 * QCatchSyscalls) gets an ordinary all-stop report, parked like a signal
 * while it is busy. An observer (ustrace) is called synchronously from
 * the stop itself and the thread goes on at once: a traced thread never
 * waits for a client's round trip.
 *
 * Threads are resumed with PTRACE_SYSCALL only while some engine wants
 * syscalls (p->sys_traced), so the others pay nothing. Entry and exit are
 * told apart with PTRACE_GET_SYSCALL_INFO rather than by counting stops,
 * which goes wrong when tracing starts inside a blocked syscall. A
 * process with our seccomp filter (seccomp.c) runs with PTRACE_CONT
 * between syscalls and reports entries as seccomp stops.
 */
#include "engine_int.h"

#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static void sysset_fill(struct sysset *s, bool on, const long *nrs, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->on = on;
	s->all = on && !nrs;
	for (size_t i = 0; on && nrs && i < n; i++)
		if (nrs[i] >= 0 && nrs[i] < SYSSET_BITS)
			s->bits[nrs[i] / 64] |= 1ULL << (nrs[i] % 64);
}

static bool sysset_has(const struct sysset *s, long nr)
{
	if (!s->on)
		return false;
	if (s->all)
		return true;
	return nr >= 0 && nr < SYSSET_BITS && (s->bits[nr / 64] >> (nr % 64)) & 1;
}

static bool sysset_within(const struct sysset *s, const struct sysset *in)
{
	if (s->all)
		return false;
	for (size_t i = 0; i < SYSSET_BITS / 64; i++)
		if (s->bits[i] & ~in->bits[i])
			return false;
	return true;
}

void sys_update(struct uproc *p)
{
	const struct sysset *filter = &p->sc_set[p->arch->pers];

	p->sys_traced = false;
	p->sys_cont = p->seccomp;
	for_each_engine(p, e) {
		if (!e->catch_sys.on)
			continue;
		p->sys_traced = true;
		/* a syscall the filter lets through unstopped would be missed */
		if (!sysset_within(&e->catch_sys, filter))
			p->sys_cont = false;
	}
}

int sys_resume_request(const struct uthread *th)
{
	const struct uproc *p = th->p;

	if (p->sys_traced && !p->sys_cont)
		return PTRACE_SYSCALL;
	/*
	 * With our filter the kernel stops at the entries (seccomp stops);
	 * from one, on to its exit. Even when nobody watches any more: a
	 * stale in_syscall would make the next seccomp stop look like a
	 * second stop of the same syscall.
	 */
	return p->seccomp && th->in_syscall ? PTRACE_SYSCALL : PTRACE_CONT;
}

int engine_catch_syscalls(struct engine *e, bool on, const long *nrs, size_t n)
{
	if (e->dead)
		return -ESRCH;
	if (e->observer)
		return -EINVAL;
	sysset_fill(&e->catch_sys, on, nrs, n);
	sys_update(e->p);
	return 0;
}

int engine_observe(struct engine *e, unsigned mask, const long *nrs, size_t n)
{
	if (e->dead)
		return -ESRCH;
	if (!e->client.on_event)
		return -EINVAL;
	e->observer = true;
	e->observe = mask;
	if (mask & ENGINE_OBSERVE_STIME)
		e->p->t->rusage = true;
	sysset_fill(&e->catch_sys, mask & ENGINE_OBSERVE_SYSCALLS, nrs, n);
	/* an observer never stops for a signal: it is told, not asked */
	for (int sig = 1; sig < NSIG; sig++)
		e->pass[sig] = true;
	/* nor has it a say in one it met at the attach: that one goes on */
	for_each_thread(e->p, th)
		th->sig_owners &= ~ENGINE_BIT(e);
	sys_update(e->p);
	return 0;
}

static bool at_syscall_insn(struct uthread *th)
{
	uint8_t insn[ARCH_SYSCALL_INSN_MAX] = {0};

	if (regs_fetch(th, false) < 0 ||
	    mem_read_raw(th->p, arch_pc(th->p->arch, &th->regs), insn, sizeof(insn)) < 2)
		return false;
	return arch_is_syscall_insn(th->p->arch, insn);
}

/*
 * PTRACE_SINGLESTEP makes no syscall stops: a step over a syscall
 * instruction would hide that syscall from every other engine that
 * catches or observes it. Such a step is made with PTRACE_SYSCALL instead
 * (entry and exit are reported as usual) and counts as done at the exit.
 * An engine that steps is not asked for its own catches, as gdbserver's
 * stepi does not report them either.
 */
bool sys_step_needs_stops(struct uthread *th)
{
	bool others = false;

	if (!th->p->sys_traced)
		return false;
	for_each_engine(th->p, e)
		if (e->catch_sys.on && !(th->step_mask & ENGINE_BIT(e)))
			others = true;
	return others && at_syscall_insn(th);
}

/* Stop-mode engines that want this syscall-stop. */
uint64_t sys_wanted_by(struct uproc *p, const struct uevent *ev)
{
	uint64_t want = 0;

	for_each_engine(p, e)
		if (!e->observer && sysset_has(&e->catch_sys, ev->nr))
			want |= ENGINE_BIT(e);
	return want;
}

static void observers_tell(struct uproc *p, const struct engine_event *ev, unsigned need, long nr)
{
	for_each_engine(p, e) {
		struct engine_event mine;

		if (!e->observer || e->dead || (need && !(e->observe & need)))
			continue;
		if (need == ENGINE_OBSERVE_SYSCALLS && !sysset_has(&e->catch_sys, nr))
			continue;
		mine = *ev;
		mine.engine = e;
		e->client.on_event(e->client.ctx, &mine);
	}
}

static long exit_nr(struct uthread *th)
{
	if (th->in_syscall)
		return th->sys_nr;
	if (regs_fetch(th, false) < 0)
		return -1;
	return (long)arch_syscall_nr(th->p->arch, &th->regs);
}

/* th enters syscall nr (a syscall-entry stop, or a seccomp stop that stands for one). */
static void sys_entered(struct uthread *th, long nr, const uint64_t args[6],
			struct engine_event *ev, struct uevent *uev)
{
	th->in_syscall = true;
	th->sys_nr = nr;
	ev->kind = ENGINE_EV_SYSCALL_ENTRY;
	ev->nr = nr;
	memcpy(ev->args, args, sizeof(ev->args));
	uev->sys_entry = true;
}

/*
 * A syscall-stop (SIGTRAP | 0x80) of th, or a seccomp stop
 * (PTRACE_EVENT_SECCOMP), which is an entry unless the entry's own
 * syscall-stop came first (resumed with PTRACE_SYSCALL: the kernel stops
 * at the entry, then in the filter).
 */
void sys_handle_stop(struct uthread *th)
{
	struct uproc *p = th->p;
	struct __ptrace_syscall_info info;
	struct engine_event ev = {
		.pid = p->pid, .tid = th->tid, .arch = p->arch, .stime_ns = th->stime_ns};
	struct uevent uev = {.kind = UEV_SYSCALL};

	memset(&info, 0, sizeof(info));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, th->tid, (void *)sizeof(info), &info) <= 0)
		return;
	if (info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
		if (th->in_syscall)
			return;
		sys_entered(th, (long)info.seccomp.nr, info.seccomp.args, &ev, &uev);
	} else if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		sys_entered(th, (long)info.entry.nr, info.entry.args, &ev, &uev);
	} else if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
		ev.kind = ENGINE_EV_SYSCALL_EXIT;
		ev.nr = exit_nr(th);
		ev.ret = info.exit.rval;
		th->in_syscall = false;
		if (th->step_sys) { /* the stepped syscall instruction is done */
			th->step_sys = false;
			th->step_owed = true;
		}
	} else {
		return;
	}
	observers_tell(p, &ev, ENGINE_OBSERVE_SYSCALLS, ev.nr);
	uev.nr = ev.nr;
	if (!sys_wanted_by(p, &uev))
		return;
	th->pending = uev;
	th->has_pending = true;
}

void observe_signal(struct uthread *th, int sig)
{
	struct uproc *p = th->p;
	struct engine_event ev = {
		.kind = ENGINE_EV_SIGNAL, .pid = p->pid, .tid = th->tid, .arch = p->arch};
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GETSIGINFO, th->tid, 0L, &si) < 0)
		si.si_signo = sig;
	ev.si = &si;
	observers_tell(p, &ev, ENGINE_OBSERVE_SIGNALS, 0);
}

void observe_exit(struct uproc *p, pid_t tid, int status)
{
	struct engine_event ev = {.pid = p->pid, .tid = tid, .arch = p->arch};

	if (WIFEXITED(status)) {
		ev.kind = ENGINE_EV_EXITED;
		ev.status = WEXITSTATUS(status);
	} else {
		ev.kind = ENGINE_EV_KILLED;
		ev.status = WTERMSIG(status);
	}
	observers_tell(p, &ev, 0, 0);
}

void observe_thread_new(struct uproc *p, pid_t tid)
{
	struct engine_event ev = {
		.kind = ENGINE_EV_THREAD_NEW, .pid = p->pid, .tid = tid, .arch = p->arch};

	observers_tell(p, &ev, 0, 0);
}

void observe_group_stop(struct uthread *th, int sig)
{
	struct uproc *p = th->p;
	struct engine_event ev = {.kind = ENGINE_EV_STOPPED,
				  .pid = p->pid,
				  .tid = th->tid,
				  .arch = p->arch,
				  .status = sig};

	observers_tell(p, &ev, ENGINE_OBSERVE_SIGNALS, 0);
}

void observe_exiting(struct uthread *th)
{
	struct uproc *p = th->p;
	struct engine_event ev = {
		.kind = ENGINE_EV_EXITING, .pid = p->pid, .tid = th->tid, .arch = p->arch};

	observers_tell(p, &ev, 0, 0);
}

void observe_tid_changed(struct uthread *th, pid_t old_tid)
{
	struct uproc *p = th->p;
	struct engine_event ev = {.kind = ENGINE_EV_TID_CHANGED,
				  .pid = p->pid,
				  .tid = th->tid,
				  .arch = p->arch,
				  .old_tid = old_tid};

	observers_tell(p, &ev, 0, 0);
}
