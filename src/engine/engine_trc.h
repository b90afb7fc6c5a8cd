/*
 * engine_trc.h: the tracer core's reader over a thread an engine holds
 * stopped, for both places that decode syscalls (ustrace's own engine and
 * the daemon's trace sessions).
 */
#ifndef UTRACED_ENGINE_TRC_H
#define UTRACED_ENGINE_TRC_H

#include "../tracer/trc.h"
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

#endif
