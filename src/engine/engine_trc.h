/*
 * engine_trc.h: the strace core on an observer engine, for both places that
 * decode syscalls (ustrace's own engine and the daemon's trace sessions):
 * a reader over a thread an engine holds stopped, the observer set up from
 * the core's options, and the one adapter from engine events to the core.
 */
#ifndef UTRACED_ENGINE_TRC_H
#define UTRACED_ENGINE_TRC_H

#include "../strace/trc.h"
#include "engine.h"

struct engine_trc_thread {
	struct engine *e;
	pid_t tid;
};

/*
 * A reader of t's memory (through the engine, breakpoints hidden), its fd
 * paths (/proc, for -y) and stack pointer. Valid while t is stopped and
 * *t lives (on the stack of an on_event callback).
 */
struct trc_reader engine_trc_reader(struct engine_trc_thread *t);

/* The strace core's personality of a thread of this arch (NULL: x86-64). */
enum trc_pers engine_trc_pers(const struct arch_desc *arch);

/*
 * Make e (stopped for it) an observer of what the options o show (-f:
 * follow fork children too), stopping only for the syscalls shown, and let
 * the process go: 0 or -errno.
 */
int engine_trc_observe(struct engine *e, const struct trc_opts *o, bool follow);

/* What a host adds to the adapter's work; every member may be NULL. */
struct engine_trc_ops {
	/* A line for the user's stderr ("ustrace: Process N attached\n"). */
	void (*msg)(void *ctx, const char *s, size_t n);
	/* -f: a fork child joined h->kids (its first thread is known to the core). */
	void (*kid_new)(void *ctx, pid_t pid);
	/* The traced process itself (its leader, tid == pid) exited or was killed. */
	void (*proc_gone)(void *ctx, bool killed, int status);
	/* -e inject=: a syscall's entry was shown; e is the thread's engine. */
	void (*inject_entry)(void *ctx, struct engine *e, pid_t tid, enum trc_pers p, long nr);
	/* ... and at its exit, before it is shown: true when *ret is now ours. */
	bool (*inject_exit)(void *ctx, struct engine *e, pid_t tid, int64_t *ret);
};

/* A host of the strace core on one traced process: ustrace's, or a trace session's. */
struct engine_trc_host {
	struct trc *trc;
	struct engine *e;	  /* the observer on the process */
	pid_t pid;		  /* the process (its leader's tid) */
	bool follow;		  /* -f: every thread, and fork children */
	bool quiet;		  /* no "Process N attached" (-q) */
	struct engine_kids *kids; /* -f: fork children, each with an observer engine of its own */
	const struct engine_trc_ops *ops;
	void *ctx; /* the ops' */
};

/*
 * An observer's event (ev, from its on_event callback) to the core, time
 * stamped now: false if it is not shown (another thread than the one given,
 * without -f). The thread is stopped until the host returns.
 */
bool engine_trc_event(const struct engine_trc_host *h, const struct engine_event *ev);

/* "ustrace: Process N attached", unless quiet: to h->ops->msg. */
void engine_trc_attached(const struct engine_trc_host *h, pid_t tid);

#endif
