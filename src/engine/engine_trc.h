/*
 * engine_trc.h: the strace core's reader over a thread an engine holds
 * stopped, and the observer set up from its options, for both places that
 * decode syscalls (ustrace's own engine and the daemon's trace sessions).
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

#endif
