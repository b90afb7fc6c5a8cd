/*
 * engine.c: the per-client API over a traced process (see engine.h):
 * resume wishes, ^C, memory with breakpoints hidden, registers, threads.
 */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

pid_t engine_pid(const struct engine *e)
{
	return e->p->pid;
}

const struct arch_desc *engine_arch(const struct engine *e)
{
	return e->p->arch;
}

bool engine_was_attached(const struct engine *e)
{
	return e->p->attached;
}

bool engine_alive(const struct engine *e)
{
	return !e->dead;
}

bool engine_stopped(const struct engine *e)
{
	return e->stopped;
}

bool engine_stop_report(const struct engine *e, struct engine_stop *st)
{
	if (!e->stopped)
		return false;
	*st = e->report;
	return true;
}

size_t engine_stop_signals(const struct engine *e, struct engine_stop *out, size_t max)
{
	size_t n = 0;

	if (!e->stopped)
		return 0;
	for_each_thread(e->p, th) {
		if (!th->has_pending || th->pending.kind != UEV_SIGNAL || th->tid == e->report.tid)
			continue;
		if (n < max)
			out[n] = (struct engine_stop){.kind = ENGINE_STOP_SIGNAL,
						      .pid = e->p->pid,
						      .tid = th->tid,
						      .sig = th->pending.sig};
		n++;
	}
	return n;
}

size_t engine_threads(struct engine *e, pid_t *tids, size_t max)
{
	size_t n = 0;

	for_each_thread(e->p, th) {
		if (n < max)
			tids[n] = th->tid;
		n++;
	}
	return n;
}

bool engine_thread_alive(struct engine *e, pid_t tid)
{
	return uproc_thread(e->p, tid) != NULL;
}

int engine_thread_name(struct engine *e, pid_t tid, char *out, size_t outlen)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", e->p->pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, out, outlen - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	while (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	return 0;
}

static const struct engine_resume *find_action(const struct engine_resume *acts, size_t n,
					       pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (acts[i].tid == tid || acts[i].tid == -1)
			return &acts[i];
	return NULL;
}

/*
 * The signal a thread gets: an engine that stopped for it may replace or
 * suppress it (gdb's "C sig" / "c"); suppression by any of them wins.
 * Another engine may only add a signal where there is none.
 */
static void resume_signal(struct engine *e, struct uthread *th, int sig)
{
	if (th->sig_owners & ENGINE_BIT(e)) {
		th->sig_owners &= ~ENGINE_BIT(e);
		if (th->sig_suppressed)
			return;
		if (!sig) {
			th->deliver_sig = 0;
			th->sig_suppressed = true; /* for good: a later pass does not undo it */
		} else if (sig != th->sig_orig) {
			th->deliver_sig = sig; /* replaced */
		}
		return; /* passing it keeps what is there, maybe another's replacement */
	}
	if (sig && !th->deliver_sig && !th->sig_suppressed)
		th->deliver_sig = sig;
}

void engine_keep_signals(struct engine *e, const bool keep[NSIG])
{
	if (e->dead)
		return;
	for_each_thread(e->p, th) {
		int sig = th->deliver_sig;

		if ((th->sig_owners & ENGINE_BIT(e)) && sig > 0 && sig < NSIG && !keep[sig])
			resume_signal(e, th, 0);
	}
}

/*
 * e asks th to step. A finished step still parked on th (its report was
 * held back while e was busy) belongs to an earlier request that e has
 * since given up: it must not answer this one.
 */
static void ask_step(struct engine *e, struct uthread *th)
{
	th->step_mask |= ENGINE_BIT(e);
	if (th->has_pending && th->pending.kind == UEV_STEP)
		th->has_pending = false;
}

/* Non-stop: let go of the named threads that are stopped for e; leave the rest. */
static int resume_nonstop(struct engine *e, const struct engine_resume *acts, size_t n)
{
	for_each_thread(e->p, th) {
		const struct engine_resume *a = find_action(acts, n, th->tid);

		if (!a || a->action == ENGINE_HOLD || !(th->hold_mask & ENGINE_BIT(e)))
			continue;
		th->hold_mask &= ~ENGINE_BIT(e);
		if (a->action == ENGINE_STEP)
			ask_step(e, th);
		resume_signal(e, th, a->sig);
	}
	sched_update(e->p);
	return 0;
}

int engine_resume(struct engine *e, const struct engine_resume *acts, size_t n)
{
	struct uproc *p = e->p;

	if (e->dead)
		return -ESRCH;
	if (e->nonstop)
		return resume_nonstop(e, acts, n);
	if (!e->stopped)
		return -EBUSY;
	for_each_thread(p, th) {
		const struct engine_resume *a = find_action(acts, n, th->tid);
		enum engine_action act = a ? a->action : ENGINE_HOLD;

		th->hold_mask &= ~ENGINE_BIT(e);
		th->step_mask &= ~ENGINE_BIT(e);
		if (act == ENGINE_HOLD) {
			th->hold_mask |= ENGINE_BIT(e);
			continue;
		}
		if (act == ENGINE_STEP)
			ask_step(e, th);
		resume_signal(e, th, a->sig);
	}
	e->stopped = false;
	e->resumed_seq = p->event_seq;
	sched_update(p);
	return 0;
}

int engine_interrupt(struct engine *e)
{
	if (e->dead)
		return -ESRCH;
	e->interrupt_req = true; /* stopped: like a SIGINT queued for the next resume */
	if (e->stopped)
		return 0;
	sched_update(e->p);
	return 0;
}

void engine_set_pass_signals(struct engine *e, const bool pass[NSIG])
{
	memcpy(e->pass, pass, sizeof(e->pass));
}

ssize_t engine_mem_read(struct engine *e, uint64_t addr, void *buf, size_t len)
{
	if (e->dead)
		return -ESRCH;
	return mem_read_orig(e->p, addr, buf, len);
}

ssize_t engine_mem_write(struct engine *e, uint64_t addr, const void *buf, size_t len)
{
	struct uproc *p = e->p;
	uint8_t *copy;
	ssize_t n;

	if (e->dead)
		return -ESRCH;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	/* new bytes under a trap become its saved original; the trap stays */
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		size_t n_ours;
		const uint8_t *ours = patch_bytes(p, bp, &n_ours);

		if (!bp->inserted)
			continue;
		for (size_t i = 0; i < n_ours; i++) {
			uint64_t a = bp->addr + i;

			if (a < addr || a >= addr + len)
				continue;
			bp->orig[i] = copy[a - addr];
			copy[a - addr] = ours[i];
			if (bp->patch) { /* its relocated copy is stale: out, and in again later */
				bp->patch->unwanted = true;
				p->patch_pass = true;
			}
		}
	}
	n = mem_write_raw(p, addr, copy, len);
	free(copy);
	return n;
}

static struct uthread *stopped_thread(struct engine *e, pid_t tid, int *err)
{
	struct uthread *th = uproc_thread(e->p, tid);

	*err = 0;
	if (!th || e->dead)
		*err = -ESRCH;
	else if (!th->stopped)
		*err = -EBUSY;
	return *err ? NULL : th;
}

int engine_regs_of(struct engine *e, pid_t tid, unsigned sets, struct arch_regs **out)
{
	int err;
	struct uthread *th = stopped_thread(e, tid, &err);

	if (!th && err == -ESRCH && (*out = uproc_ghost_regs(e->p, tid)))
		return 0; /* read only: engine_regs_store finds no thread */
	if (!th)
		return err;
	err = regs_fetch(th, (sets & ~ARCH_RS_GP) != 0); /* the others come together */
	if (err)
		return err;
	*out = &th->regs;
	return 0;
}

int engine_regs(struct engine *e, pid_t tid, struct arch_regs **out)
{
	return engine_regs_of(e, tid, ARCH_RS_GP | ARCH_RS_EXT | ARCH_RS_TLS, out);
}

int engine_pc(struct engine *e, pid_t tid, uint64_t *pc)
{
	int err;
	struct uthread *th = stopped_thread(e, tid, &err);

	if (!th)
		return err;
	err = regs_fetch(th, false);
	if (err)
		return err;
	*pc = arch_pc(e->p->arch, &th->regs);
	return 0;
}

int engine_regs_store(struct engine *e, pid_t tid, unsigned which)
{
	int err;
	struct uthread *th = stopped_thread(e, tid, &err);

	if (!th)
		return err;
	/* gdb moved it: no step over owed for the old pc (but still owed if it did not) */
	if (th->at_bp && arch_pc(e->p->arch, &th->regs) != th->bp_pc)
		th->at_bp = false;
	return regs_store(th, which);
}

int engine_siginfo_get(struct engine *e, pid_t tid, siginfo_t *si)
{
	int err;
	struct uthread *th = stopped_thread(e, tid, &err);

	if (!th)
		return err;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0L, si) < 0)
		return -errno;
	/*
	 * A thread we stopped (PTRACE_INTERRUPT) shows the signal a
	 * signal-based stub would have stopped it with: the SIGINT of a ^C
	 * reported as such, else a SIGSTOP. gdb tells stopped-by-the-debugger
	 * from a signal that way (gdb.threads/attach-into-signal.exp looks for
	 * 14 or 19).
	 */
	if (si->si_signo == SIGTRAP && si->si_code == (SIGTRAP | PTRACE_EVENT_STOP << 8)) {
		bool ctrlc = e->report.kind == ENGINE_STOP_INTERRUPT && e->report.tid == tid &&
			     e->report.sig == SIGINT;

		*si = (siginfo_t){.si_signo = ctrlc ? SIGINT : SIGSTOP,
				  .si_code = ctrlc ? SI_USER : SI_TKILL,
				  .si_pid = getpid(),
				  .si_uid = getuid()};
	}
	return 0;
}

int engine_siginfo_set(struct engine *e, pid_t tid, const siginfo_t *si)
{
	int err;
	struct uthread *th = stopped_thread(e, tid, &err);

	if (!th)
		return err;
	return ptrace(PTRACE_SETSIGINFO, tid, 0L, si) < 0 ? -errno : 0;
}

int engine_bp_insert(struct engine *e, enum engine_bp_type type, uint64_t addr, int len)
{
	if (e->dead)
		return -ESRCH;
	if (type == ENGINE_BP_SW)
		return bp_sw_insert(e, addr);
	/*
	 * x86 debug registers cannot watch reads alone. Saying so (as
	 * gdbserver does) makes gdb use an access watchpoint and tell reads
	 * from writes by the value; trapping writes as "reads" would not.
	 */
	if (type == ENGINE_BP_READ)
		return -EOPNOTSUPP;
	return bp_hw_insert(e, type, addr, len);
}

void engine_xol_stats(struct engine *e, struct engine_xol_stats *out)
{
	*out = e->p->xol_stats;
}

bool engine_bp_permanent(struct engine *e, uint64_t addr)
{
	struct swbp *bp = bp_find(e->p, addr);

	return bp && !memcmp(bp->orig, e->p->arch->trap_insn, e->p->arch->trap_len);
}

int engine_bp_remove(struct engine *e, enum engine_bp_type type, uint64_t addr, int len)
{
	if (e->dead)
		return 0;
	if (type == ENGINE_BP_SW)
		return bp_sw_remove_lazy(e, addr); /* (gdb's z0: may come back at once) */
	return bp_hw_remove(e, type, addr, len);
}

int engine_proc_read(struct engine *e, const char *name, char **out, size_t *len)
{
	char path[128];
	size_t cap = 4096, n = 0;
	char *data;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", e->p->pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	data = malloc(cap);
	while (data && (r = read(fd, data + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			data = realloc(data, cap *= 2);
	}
	close(fd);
	if (!data)
		return -ENOMEM;
	*out = data;
	*len = n;
	return 0;
}

int engine_exe_path(struct engine *e, char *out, size_t outlen)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", e->p->pid);
	n = readlink(path, out, outlen - 1);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return 0;
}

void engine_detach_all(struct tracer *t)
{
	struct uproc *p = t->procs;

	/* a detach may free p and others (its fork children's engines go with it): from the top */
	while (p) {
		if (!p->engines) {
			p = p->next;
			continue;
		}
		engine_detach(p->engines);
		p = t->procs;
	}
}
