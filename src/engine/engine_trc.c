/*
 * engine_trc.c: the strace core's reader (struct trc_reader) over a
 * stopped thread of an engine, and the adapter from an observer's events
 * to the core. One adapter for both decoders' hosts (ustrace_run.c and
 * gdb_trace.c): what differs between them comes in engine_trc_ops.
 */
#include "engine_trc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static ssize_t rd_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct engine_trc_thread *t = ctx;

	return engine_mem_read(t->e, addr, buf, len);
}

static int rd_fd_path(void *ctx, int fd, char *out, size_t outlen)
{
	struct engine_trc_thread *t = ctx;
	char link[64];
	ssize_t n;

	if (fd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)t->tid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)t->tid, fd);
	n = readlink(link, out, outlen - 1);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return 0;
}

static uint64_t rd_sp(void *ctx)
{
	struct engine_trc_thread *t = ctx;
	struct arch_regs *regs;

	if (engine_regs(t->e, t->tid, &regs) < 0)
		return 0;
	return arch_sp(engine_arch(t->e), regs);
}

struct trc_reader engine_trc_reader(struct engine_trc_thread *t)
{
	return (struct trc_reader){t, rd_read, rd_fd_path, rd_sp};
}

enum trc_pers engine_trc_pers(const struct arch_desc *arch)
{
	return arch && arch->pers ? TRC_PERS_32 : TRC_PERS_64;
}

/* -c without -w sums system CPU time: the engine must fetch it at each stop. */
static unsigned observe_mask(const struct trc_opts *o, bool follow)
{
	unsigned mask = ENGINE_OBSERVE_SYSCALLS | ENGINE_OBSERVE_SIGNALS;

	if (follow)
		mask |= ENGINE_OBSERVE_FORKS;
	if (o->count != TRC_COUNT_OFF && !o->count_wall)
		mask |= ENGINE_OBSERVE_STIME;
	return mask;
}

int engine_trc_observe(struct engine *e, const struct trc_opts *o, bool follow)
{
	static long nrs[TRC_SET_MAX];
	enum trc_pers p = engine_trc_pers(engine_arch(e));
	struct engine_resume run = {-1, ENGINE_RUN, 0};
	bool all = trc_traces_all(o, p);
	size_t n = all ? 0 : trc_traced_nrs(o, p, nrs, TRC_SET_MAX);
	int rc = engine_observe(e, observe_mask(o, follow), all ? NULL : nrs, n);

	return rc ? rc : engine_resume(e, &run, 1);
}

void engine_trc_attached(const struct engine_trc_host *h, pid_t tid)
{
	char msg[64];
	int n;

	if (h->quiet || !h->ops->msg)
		return;
	n = snprintf(msg, sizeof(msg), "ustrace: Process %d attached\n", (int)tid);
	h->ops->msg(h->ctx, msg, (size_t)n);
}

static void proc_new(const struct engine_trc_host *h, const struct engine_event *ev)
{
	if (!ev->child || !engine_kids_add(h->kids, ev->child, ev->child_pid))
		return;
	trc_thread_new(h->trc, ev->child_pid);
	if (h->ops->kid_new)
		h->ops->kid_new(h->ctx, ev->child_pid);
}

bool engine_trc_event(const struct engine_trc_host *h, const struct engine_event *ev)
{
	const struct engine_trc_ops *ops = h->ops;
	/* a fork child's events come with its own engine, through which its memory is read */
	struct engine_trc_thread th = {ev->engine ? ev->engine : h->e, ev->tid};
	struct trc_reader rd = engine_trc_reader(&th);
	struct trc_who w = {ev->tid, engine_trc_pers(ev->arch), &rd, {0, 0}, 0, false};
	int64_t ret = ev->ret;

	if (!h->follow && ev->tid != h->pid)
		return false; /* without -f strace traces the thread it was given only */
	clock_gettime(CLOCK_REALTIME, &w.ts); /* -t, -T, -c: at the event, not at the reader */
	w.stime_ns = ev->stime_ns;
	switch (ev->kind) {
	case ENGINE_EV_SYSCALL_ENTRY:
		trc_syscall_entry(h->trc, &w, ev->nr, ev->args);
		if (ops->inject_entry)
			ops->inject_entry(h->ctx, th.e, ev->tid, w.pers, ev->nr);
		break;
	case ENGINE_EV_SYSCALL_EXIT:
		if (ops->inject_exit)
			w.injected = ops->inject_exit(h->ctx, th.e, ev->tid, &ret);
		trc_syscall_exit(h->trc, &w, ret);
		break;
	case ENGINE_EV_SIGNAL:
		if (ev->si)
			trc_signal(h->trc, &w, ev->si);
		break;
	case ENGINE_EV_STOPPED:
		trc_stopped(h->trc, &w, ev->status);
		break;
	case ENGINE_EV_EXITING:
		trc_exiting(h->trc, &w);
		break;
	case ENGINE_EV_TID_CHANGED:
		trc_retid(h->trc, &w, ev->old_tid);
		break;
	case ENGINE_EV_EXITED:
	case ENGINE_EV_KILLED:
		if (ev->kind == ENGINE_EV_EXITED)
			trc_exited(h->trc, &w, ev->status);
		else
			trc_killed(h->trc, &w, ev->status, false);
		if (ev->tid == h->pid && ops->proc_gone)
			ops->proc_gone(h->ctx, ev->kind == ENGINE_EV_KILLED, ev->status);
		break;
	case ENGINE_EV_PROC_NEW:
		proc_new(h, ev);
		break;
	case ENGINE_EV_THREAD_NEW:
		trc_thread_new(h->trc, ev->tid);
		engine_trc_attached(h, ev->tid);
		break;
	}
	return true;
}
