/*
 * fork.c: fork and vfork children.
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
 *
 * Nobody waits for the child's first stop: from the fork event to its
 * settling (fork_child_settle) the child is a struct fork_child
 * (fork_child.c), whose statuses come through the loop like any other;
 * the forking thread is held at its fork stop meanwhile if an engine is
 * to hear of the fork, so the report still comes with the child ready.
 */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_mem(pid_t child)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", child);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Put the original bytes back under the traps in the child's copy of memory. */
static void strip_traps(struct uproc *p, pid_t child, uint64_t keep)
{
	int fd = child_mem(child);

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

void fork_traps_free(struct swbp *bps)
{
	while (bps) {
		struct swbp *bp = bps;

		bps = bp->next;
		free(bp);
	}
}

/*
 * Copies of the traps of p that engines in want own, as the child has
 * them: an int3 each. NULL and *ok false if memory ran out.
 */
static struct swbp *copy_traps(const struct uproc *p, uint64_t want, bool *ok)
{
	struct swbp *list = NULL;

	*ok = true;
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		struct swbp *nb;

		if (!bp->inserted || !(bp->owners & want))
			continue;
		nb = malloc(sizeof(*nb));
		if (!nb) {
			fork_traps_free(list);
			*ok = false;
			return NULL;
		}
		*nb = *bp;
		nb->owners &= want;
		nb->progs = NULL; /* the child's conditions are its engines' business */
		nb->cond = NULL;
		nb->cond_len = 0;
		nb->cond_owner = 0;
		nb->patch = NULL; /* an int3 in the child (strip_traps) */
		nb->patch_why = NULL;
		nb->next = list;
		list = nb;
	}
	return list;
}

/* The int3s of the copies (bps, of arch) out of the child's memory. */
static void put_back(const struct arch_desc *arch, const struct swbp *bps, pid_t child)
{
	int fd = bps ? child_mem(child) : -1;

	if (fd < 0)
		return;
	for (const struct swbp *bp = bps; bp; bp = bp->next)
		if (pwrite(fd, bp->orig, arch->trap_len, (off_t)bp->addr) < 0)
			break;
	close(fd);
}

/* The copies go to the child's engines (owners renumbered); those left by all, out of it. */
static void clone_traps(struct fork_child *fc, struct uproc *cp, const int map[UPROC_MAX_ENGINES])
{
	struct swbp *gone = NULL;

	while (fc->traps) {
		struct swbp *bp = fc->traps;

		fc->traps = bp->next;
		bp->owners = map_owners(bp->owners, map);
		bp->next = bp->owners ? cp->bps : gone;
		if (bp->owners)
			cp->bps = bp;
		else
			gone = bp;
	}
	put_back(cp->arch, gone, cp->pid);
	fork_traps_free(gone);
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
static void tell_observers(struct uthread *th, struct uproc *p, struct uproc *cp,
			   struct engine *observed[UPROC_MAX_ENGINES])
{
	for_each_engine(p, e) {
		struct engine_event ev = {.kind = ENGINE_EV_PROC_NEW,
					  .pid = p->pid,
					  .tid = th ? th->tid : p->pid,
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

/*
 * Does child share tid's memory? A vfork's does; so does a clone(CLONE_VM)
 * that makes a process (reported as PTRACE_EVENT_CLONE), whose memory
 * must not be written as a copy's (strip_traps) nor have pages unmapped.
 */
static bool same_vm(pid_t tid, pid_t child)
{
	return syscall(SYS_kcmp, tid, child, KCMP_VM, 0L, 0L) == 0;
}

void fork_event(struct uthread *th, pid_t child, bool vfork)
{
	struct uproc *p = th->p;
	unsigned need = vfork ? ENGINE_EVENT_VFORK : ENGINE_EVENT_FORK;
	struct fork_child *fc = calloc(1, sizeof(*fc));
	bool shared = vfork || same_vm(th->tid, child), copied = true;
	uint64_t want = 0, follow = 0;
	struct swbp *traps = NULL;

	for_each_engine(p, e) {
		if (!e->observer && (e->events & need))
			want |= ENGINE_BIT(e);
		if (e->observer && !e->dead && (e->observe & ENGINE_OBSERVE_FORKS))
			follow |= ENGINE_BIT(e);
	}
	if (fc && !shared)
		traps = copy_traps(p, want, &copied);
	if (!shared) /* (out of memory: none kept) */
		strip_traps(p, child, fc && copied ? want : 0);
	if (!fc) { /* no memory: it goes at its first stop, without our traps */
		int status;

		if (tracer_take_early(p->t, child, &status) == 0)
			ptrace(PTRACE_DETACH, child, 0L, 0L);
		else
			leaving_add(p, child);
		return;
	}
	*fc = (struct fork_child){.pid = child,
				  .parent = p,
				  .parent_tid = th->tid,
				  .vfork = vfork,
				  .shared_vm = shared,
				  .want = want,
				  .follow = follow,
				  .inj_seq = p->xol_inj_seq,
				  .arch = p->arch,
				  .sysinsn = p->xol_sysinsn};
	fc->traps = traps;
	/* every page, even one MADV_DONTFORK: was the madvise in time? (fork_child.c) */
	for (struct xol_page *pg = p->xol_pages; pg && !shared; pg = pg->next)
		fork_child_page(fc, pg->addr, pg->len);
	/* (observers too: its parent must not be gone before they have the child) */
	th->fork_wait = (want | follow) != 0;
	fork_child_start(p->t, fc);
	CRASH_POINT("fork"); /* a child not settled yet, maybe */
}

/*
 * fc is clean (or gone): the rest of its fork. Engines that take forks
 * get it as a process of their own, stopped, and the forking thread's
 * report; observers get it running; with neither it is let go.
 */
void fork_child_settle(struct tracer *t, struct fork_child *fc, bool alive)
{
	struct uproc *p = fc->parent, *cp;
	struct uthread *th = p ? uproc_thread(p, fc->parent_tid) : NULL, *ct;
	struct engine *observed[UPROC_MAX_ENGINES] = {0};
	int map[UPROC_MAX_ENGINES];

	if (th)
		th->fork_wait = false;
	if (!th || !alive)
		fc->want = 0; /* no report to make, or nothing to report */
	if (!p || !alive || (!fc->want && !fc->follow)) {
		if (alive)
			put_back(fc->arch, fc->traps, fc->pid);
		if (alive)
			ptrace(PTRACE_DETACH, fc->pid, 0L, (long)fc->sig);
		goto out;
	}
	cp = uproc_new(t, fc->pid, p->attached);
	cp->arch = p->arch;
	cp->seccomp = p->seccomp;
	memcpy(cp->sc_set, p->sc_set, sizeof(cp->sc_set));
	ct = uthread_add(cp, fc->pid);
	ct->stopped = true;
	ct->deliver_sig = fc->sig;
	for (int i = 0; i < UPROC_MAX_ENGINES; i++)
		map[i] = -1;
	for_each_engine(p, e) {
		struct engine *ce = fc->want & ENGINE_BIT(e) ? follow_child(e, cp) : NULL;

		if (ce)
			map[e->slot] = ce->slot;
		else if (fc->follow & ENGINE_BIT(e))
			observed[e->slot] = observe_child(e, cp);
	}
	clone_traps(fc, cp, map);
	sys_update(cp);
	if (fc->follow) {
		tell_observers(th, p, cp, observed);
		sched_update(cp); /* runs unless a gdb that follows it holds it */
	}
	if (fc->want && th) {
		th->pending = (struct uevent){
			.kind = UEV_FORK, .vfork = fc->vfork, .addr = (uint64_t)fc->pid};
		th->has_pending = true;
	}
out:
	fork_traps_free(fc->traps);
	free(fc->pages);
	free(fc);
	if (p)
		sched_update(p);
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
