/*
 * fork_child.c: a fork child between its parent's fork event and its
 * settling (fork.c), driven by the statuses the loop reaps: nobody waits
 * for it, so its first stop may come as late as it likes.
 *
 * Pages of ours it may have inherited are unmapped in it first, by
 * munmaps injected at its own stops as xol.c injects syscalls. The
 * scratch pages are MADV_DONTFORK, but a fork between a page's mmap and
 * its madvise copies it, and the order in which we hear of the fork and
 * of those syscalls says nothing of the order in which they ran (the
 * kernel hands out the newest tracee's statuses first: a fork can be
 * reported before the mmap that preceded it, a madvise after it seen done
 * before it). So each page the parent had when we heard of the fork, and
 * each one a syscall injected before then maps later, is a candidate
 * (fork_children_page), and /proc/CHILD/maps says which it has. A child
 * whose parent still has such a syscall in flight waits for its result.
 */
#include "engine_int.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

/* An injected munmap met a signal first this many times: that page is left. */
#define MUNMAP_TRIES 4

static struct fork_child *find(struct tracer *t, pid_t pid)
{
	for (struct fork_child *fc = t->forks; fc; fc = fc->next)
		if (fc->pid == pid)
			return fc;
	return NULL;
}

static void unlink_child(struct tracer *t, struct fork_child *fc)
{
	for (struct fork_child **pp = &t->forks; *pp; pp = &(*pp)->next) {
		if (*pp == fc) {
			*pp = fc->next;
			return;
		}
	}
}

void fork_child_page(struct fork_child *fc, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < fc->npages; i++)
		if (fc->pages[i].addr == addr)
			return;
	fc->pages = array_grow(fc->pages, fc->npages, &fc->pages_cap, sizeof(*fc->pages));
	fc->pages[fc->npages++] = (struct fork_page){addr, len};
}

void fork_children_page(struct uproc *p, unsigned long seq, uint64_t addr, uint64_t len)
{
	for (struct fork_child *fc = p->t->forks; fc; fc = fc->next) {
		if (fc->parent != p || fc->shared_vm || seq > fc->inj_seq)
			continue; /* (an mmap begun after we heard of the fork ran after it) */
		fc->sysinsn = p->xol_sysinsn;
		fork_child_page(fc, addr, len);
	}
}

/* Does pid have [addr, addr + len) inside one anonymous mapping (no file, no name)? */
static bool child_has(pid_t pid, uint64_t addr, uint64_t len)
{
	char path[64], line[512];
	bool has = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, ino;
		int end = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %" SCNu64 " %n", &lo, &hi,
			   &ino, &end) < 3 ||
		    addr < lo || addr >= hi)
			continue;
		has = addr + len <= hi && ino == 0 &&
		      (!end || line[end] == '\0' || line[end] == '\n');
		break;
	}
	fclose(f);
	return has;
}

/* munmap(addr, len) through the stopped child: its stops end it (munmap_stop). */
static bool munmap_start(struct fork_child *fc, const struct fork_page *pg)
{
	uint64_t args[6] = {pg->addr, pg->len};
	arch_gp_t r;

	if (!fc->sysinsn || regs_gp_get(fc->arch, fc->pid, &fc->saved) < 0)
		return false;
	r = fc->saved;
	arch_syscall_setup(fc->arch, &r, fc->sysinsn, fc->arch->nr_munmap, args);
	if (regs_gp_set(fc->arch, fc->pid, &r) < 0)
		return false;
	if (ptrace(PTRACE_SYSCALL, fc->pid, 0L, 0L) < 0) {
		regs_gp_set(fc->arch, fc->pid, &fc->saved);
		return false;
	}
	fc->injecting = true;
	fc->entered = false;
	return true;
}

/* A signal the child met (not ours: the first stop's SIGSTOP, a syscall stop): it keeps it. */
static void keep_signal(struct fork_child *fc, int status)
{
	int sig = WSTOPSIG(status);

	if (!((unsigned)status >> 16) && sig != SIGTRAP && sig != (SIGTRAP | 0x80))
		fc->sig = sig;
}

/* A stop of the child lent to an munmap: its entry (on to the exit), its exit, or a signal. */
static void munmap_stop(struct fork_child *fc, int status)
{
	int event = (unsigned)status >> 16;
	bool sysstop = WSTOPSIG(status) == (SIGTRAP | 0x80) && !event;

	if ((event == PTRACE_EVENT_SECCOMP || (sysstop && !fc->entered)) &&
	    ptrace(PTRACE_SYSCALL, fc->pid, 0L, 0L) == 0) {
		fc->entered = true;
		return;
	}
	regs_gp_set(fc->arch, fc->pid, &fc->saved);
	fc->injecting = false;
	if ((sysstop && fc->entered) || ++fc->tries >= MUNMAP_TRIES) {
		fc->next_page++; /* done (or given up: the page stays) */
		fc->tries = 0;
		return;
	}
	keep_signal(fc, status); /* a signal before the munmap ran: once more, after it */
}

/* On as far as it can go; settled (and freed) at the end. */
static void advance(struct tracer *t, struct fork_child *fc)
{
	if (!fc->stopped || fc->injecting)
		return;
	if (!fc->shared_vm && fc->parent && xol_injecting_upto(fc->parent, fc->inj_seq))
		return; /* a page may be on its way into it: its address first */
	while (fc->next_page < fc->npages) {
		const struct fork_page *pg = &fc->pages[fc->next_page];

		if (child_has(fc->pid, pg->addr, pg->len) && munmap_start(fc, pg))
			return;
		fc->next_page++;
	}
	unlink_child(t, fc);
	fork_child_settle(t, fc, true);
}

void fork_child_start(struct tracer *t, struct fork_child *fc)
{
	int status;

	fc->next = t->forks;
	t->forks = fc;
	if (tracer_take_early(t, fc->pid, &status) == 0)
		fork_child_status(t, fc->pid, status);
}

bool fork_child_status(struct tracer *t, pid_t pid, int status)
{
	struct fork_child *fc = find(t, pid);

	if (!fc)
		return false;
	if (!WIFSTOPPED(status)) { /* killed before it was settled */
		unlink_child(t, fc);
		fork_child_settle(t, fc, false);
		return true;
	}
	if (!fc->stopped) {
		fc->stopped = true;
		if (WSTOPSIG(status) != SIGSTOP) /* (an auto-attached child's first stop) */
			keep_signal(fc, status);
	} else if (fc->injecting) {
		munmap_stop(fc, status);
	} else {
		keep_signal(fc, status); /* (cannot be: it is not resumed otherwise) */
	}
	advance(t, fc);
	return true;
}

void fork_children_advance(struct tracer *t)
{
	for (struct fork_child *fc = t->forks, *next; fc; fc = next) {
		next = fc->next;
		advance(t, fc);
	}
}

void fork_children_engine_gone(struct engine *e)
{
	for (struct fork_child *fc = e->p->t->forks; fc; fc = fc->next) {
		if (fc->parent != e->p)
			continue;
		fc->want &= ~ENGINE_BIT(e);
		fc->follow &= ~ENGINE_BIT(e);
	}
}

void fork_children_parent_gone(struct uproc *p)
{
	for (struct fork_child *fc = p->t->forks; fc; fc = fc->next) {
		if (fc->parent != p)
			continue;
		fc->parent = NULL;
		fc->want = fc->follow = 0;
	}
	tracer_wake(p->t); /* one may have waited for its syscalls: on at the next turn */
}

/*
 * We exit: each child goes now, without our traps (pages not yet unmapped
 * stay); the kernel detaches one that has not stopped yet.
 */
void fork_children_free(struct tracer *t)
{
	while (t->forks) {
		struct fork_child *fc = t->forks;

		t->forks = fc->next;
		fc->parent = NULL;
		fc->want = fc->follow = 0;
		/* in its munmap: its registers must come back (the syscall is short) */
		for (int stops = 0; fc->injecting && stops < 3; stops++) {
			int status;

			if (waitpid(fc->pid, &status, __WALL) != fc->pid || !WIFSTOPPED(status))
				break;
			munmap_stop(fc, status);
		}
		fork_child_settle(t, fc, true); /* (the detach fails if it is not stopped) */
	}
}
