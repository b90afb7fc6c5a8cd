/*
 * fork.c: fork and vfork children, and the statuses that come too early.
 *
 * With PTRACE_O_TRACEFORK the kernel attaches every child to us. Engines
 * that asked for fork events (gdb's fork-events) get the child as a
 * process of its own: a new uproc, and for each of them a new engine with
 * the same client, stopped for it, so gdb can follow it, keep it or
 * detach it. Without such an engine the child is let go at once, with
 * our breakpoints taken out of its copy of memory.
 *
 * A vfork child shares its parent's memory: it gets no breakpoints of its
 * own (the traps it sees are its parent's), and nothing is written to it.
 *
 * Observers that follow forks (ustrace -f: ENGINE_OBSERVE_FORKS) get an
 * observer engine of their own on the child, which runs at once: they
 * never stop anything. A child that inherited our seccomp filter keeps
 * it (and must stay traced: seccomp.c).
 *
 * A clone() that makes a process rather than a thread (no CLONE_THREAD,
 * an exit signal other than SIGCHLD) is reported by the kernel as
 * PTRACE_EVENT_CLONE: it is a fork for tracers, a thread for gdb.
 */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child may stop before its parent reports the fork: that status was kept. */
int tracer_take_early(struct tracer *t, pid_t pid, int *status)
{
	for (unsigned i = 0; i < t->nearly; i++) {
		if (t->early[i].pid != pid)
			continue;
		*status = t->early[i].status;
		t->early[i] = t->early[--t->nearly];
		return 0;
	}
	return -ENOENT;
}

static void wait_child_stop(struct tracer *t, pid_t child)
{
	int status;

	if (tracer_take_early(t, child, &status) == 0)
		return;
	while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
		;
}

/* Put the original bytes back under the traps in the child's copy of memory. */
static void strip_traps(struct uproc *p, pid_t child, uint64_t keep)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", child);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		uint8_t buf[16];
		size_t len;

		patch_bytes(p, bp, &len);
		if (!bp->inserted || ((bp->owners & keep) && len == p->arch->trap_len))
			continue;
		/* a patch's jmp leads to pages the child has not (MADV_DONTFORK): an int3 there */
		memcpy(buf, bp->orig, len);
		if (bp->owners & keep)
			memcpy(buf, p->arch->trap_insn, p->arch->trap_len);
		if (pwrite(fd, buf, len, (off_t)bp->addr) < 0)
			break;
	}
	close(fd);
}

static uint64_t map_owners(uint64_t owners, const int map[UPROC_MAX_ENGINES])
{
	uint64_t out = 0;

	for (int i = 0; i < UPROC_MAX_ENGINES; i++)
		if ((owners >> i) & 1 && map[i] >= 0)
			out |= 1ULL << map[i];
	return out;
}

/* The child's copies of the traps its following engines own. */
static void clone_traps(struct uproc *p, struct uproc *cp, const int map[UPROC_MAX_ENGINES])
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		uint64_t owners = map_owners(bp->owners, map);
		struct swbp *nb;

		if (!bp->inserted || !owners)
			continue;
		nb = malloc(sizeof(*nb));
		if (!nb)
			break;
		*nb = *bp;
		nb->owners = owners;
		nb->progs = NULL; /* the child's conditions are its engines' business */
		nb->cond = NULL;
		nb->cond_len = 0;
		nb->cond_owner = 0;
		nb->patch = NULL; /* an int3 in the child (strip_traps) */
		nb->patch_why = NULL;
		nb->next = cp->bps;
		cp->bps = nb;
	}
}

static struct engine *follow_child(struct engine *e, struct uproc *cp)
{
	struct engine *ce = engine_new(cp, &e->client);

	if (!ce)
		return NULL;
	ce->stopped = true;
	ce->events = e->events;
	memcpy(ce->pass, e->pass, sizeof(ce->pass));
	ce->report = (struct engine_stop){
		.kind = ENGINE_STOP_ATTACHED, .pid = cp->pid, .tid = cp->pid, .sig = SIGTRAP};
	/*
	 * Several threads may fork before the client hears of the first
	 * fork: each child waits for its own report. Past the array, the
	 * oldest is let go.
	 */
	if (e->nchildren == sizeof(e->children) / sizeof(e->children[0])) {
		engine_detach(e->children[0]);
		memmove(e->children, e->children + 1, --e->nchildren * sizeof(e->children[0]));
	}
	e->children[e->nchildren++] = ce;
	return ce;
}

static struct engine *observe_child(struct engine *e, struct uproc *cp)
{
	struct engine *ce = engine_new(cp, &e->client);

	if (!ce)
		return NULL;
	ce->observer = true;
	ce->observe = e->observe;
	ce->catch_sys = e->catch_sys;
	memcpy(ce->pass, e->pass, sizeof(ce->pass));
	return ce;
}

/* Each following observer hears of its engine on the child, before the child runs. */
static void tell_observers(struct uthread *th, struct uproc *cp,
			   struct engine *observed[UPROC_MAX_ENGINES])
{
	struct uproc *p = th->p;

	for_each_engine(p, e) {
		struct engine_event ev = {.kind = ENGINE_EV_PROC_NEW,
					  .pid = p->pid,
					  .tid = th->tid,
					  .arch = p->arch,
					  .engine = e,
					  .child = observed[e->slot],
					  .child_pid = cp->pid};

		if (ev.child)
			e->client.on_event(e->client.ctx, &ev);
	}
}

bool fork_is_thread(struct uproc *p, pid_t tid)
{
	pid_t tgid;

	/*
	 * gdb (and gdbserver) take every clone for a new thread of the
	 * process, whatever its flags: while a stop-mode engine is there,
	 * so do we. Only tracers alone see such a clone as the process it is.
	 */
	for_each_engine(p, e)
		if (!e->observer)
			return true;
	tgid = tracer_tgid_of(tid);
	return tgid == 0 || tgid == p->pid; /* unknown: a thread (never lost) */
}

void fork_event(struct uthread *th, pid_t child, bool vfork)
{
	struct uproc *p = th->p, *cp;
	unsigned need = vfork ? ENGINE_EVENT_VFORK : ENGINE_EVENT_FORK;
	struct engine *observed[UPROC_MAX_ENGINES] = {0};
	int map[UPROC_MAX_ENGINES];
	uint64_t want = 0, follow = 0;

	for_each_engine(p, e) {
		if (!e->observer && (e->events & need))
			want |= ENGINE_BIT(e);
		if (e->observer && !e->dead && (e->observe & ENGINE_OBSERVE_FORKS))
			follow |= ENGINE_BIT(e);
	}
	wait_child_stop(p->t, child);
	if (!vfork) {
		strip_traps(p, child, want);
		xol_fork_child(p, child);
	}
	if (!want && !follow) {
		ptrace(PTRACE_DETACH, child, 0L, 0L);
		return;
	}
	cp = uproc_new(p->t, child, p->attached);
	cp->arch = p->arch;
	cp->seccomp = p->seccomp;
	memcpy(cp->sc_set, p->sc_set, sizeof(cp->sc_set));
	uthread_add(cp, child)->stopped = true;
	for (int i = 0; i < UPROC_MAX_ENGINES; i++)
		map[i] = -1;
	for_each_engine(p, e) {
		struct engine *ce = want & ENGINE_BIT(e) ? follow_child(e, cp) : NULL;

		if (ce)
			map[e->slot] = ce->slot;
		else if (follow & ENGINE_BIT(e))
			observed[e->slot] = observe_child(e, cp);
	}
	if (!vfork)
		clone_traps(p, cp, map);
	sys_update(cp);
	if (follow) {
		tell_observers(th, cp, observed);
		sched_update(cp); /* runs unless a gdb that follows it holds it */
	}
	if (!want)
		return;
	th->pending = (struct uevent){.kind = UEV_FORK, .vfork = vfork, .addr = (uint64_t)child};
	th->has_pending = true;
}

void engine_set_events(struct engine *e, unsigned mask)
{
	e->events = mask;
}

struct engine *engine_fork_child(struct engine *e, pid_t child)
{
	for (unsigned i = 0; i < e->nchildren; i++) {
		struct engine *ce = e->children[i];

		if (ce->p->pid != child)
			continue;
		memmove(e->children + i, e->children + i + 1,
			(--e->nchildren - i) * sizeof(e->children[0]));
		return ce;
	}
	return NULL;
}
