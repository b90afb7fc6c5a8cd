/*
 * ep_fuse.h: what the FUSE endpoint shares with the rest of the endpoint.
 *
 * ep_fuse.c speaks FUSE (libfuse's low-level API, driven from our epoll
 * loop); ep_engines.c writes the text of DIR/<pid>/engines. The /proc
 * questions (which pids exist, whose they are, who may debug them) are
 * util/procfs.c's. ep_engines.c has no libfuse in it, so it builds
 * without libfuse3-dev.
 */
#ifndef UTRACED_EP_FUSE_H
#define UTRACED_EP_FUSE_H

#include <sys/types.h>

#include "../engine/engine.h"
#include "../util/buf.h"
#include "../util/procfs.h"

/*
 * The pid a name in DIR stands for (DIR/<pid>), or 0: decimal digits
 * only, no leading zero, so that each pid has one name. Pure, and built
 * without libfuse3 too (fuzz/pty_session_fuzz.c).
 */
pid_t ep_fuse_name_pid(const char *name);

/* The text of DIR/<pid>/engines: one line per engine on pid (see docs/fuse.md). */
void ep_engines_text(struct tracer *t, pid_t pid, struct buf *out);

#endif
