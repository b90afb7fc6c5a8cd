/*
 * ep_fuse.h: what the two halves of the FUSE endpoint share.
 *
 * ep_fuse.c speaks FUSE (libfuse's low-level API, driven from our epoll
 * loop); ep_fuse_proc.c answers the questions about processes it needs
 * (which pids exist, whose they are, who may debug them, who is attached)
 * from /proc and the engine API. The second half has no libfuse in it, so
 * it builds and can be tested without libfuse3-dev.
 */
#ifndef UTRACED_EP_FUSE_H
#define UTRACED_EP_FUSE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../engine/engine.h"
#include "../util/buf.h"

enum ep_proc_kind {
	EP_PROC_NONE,	 /* no such pid (or it is a zombie) */
	EP_PROC_LEADER,	 /* a thread-group leader: a process */
	EP_PROC_THREAD,	 /* a thread that is not the leader */
	EP_PROC_KTHREAD, /* a kernel thread */
};

/*
 * What pid is, and who owns its entries: the owner of /proc/<pid> (its
 * effective ids, or root when it is not dumpable, which is what keeps
 * other users away from a setuid program).
 */
enum ep_proc_kind ep_proc_kind(pid_t pid, uid_t *uid, gid_t *gid);

/*
 * Could the caller (thread tid, file-system ids uid/gid, as FUSE reports
 * them) ptrace pid? Same ids and dumpable, or CAP_SYS_PTRACE in our user
 * namespace; Yama's ptrace_scope is honoured. 0 or -EACCES.
 */
int ep_proc_may_debug(pid_t pid, pid_t tid, uid_t uid, gid_t gid);

/* The process a thread belongs to (its Tgid), or 0. */
pid_t ep_proc_tgid(pid_t tid);

/*
 * The processes (leaders, no kernel threads, not ourselves) the caller may
 * debug, as NUL-separated decimal names appended to out.
 */
void ep_proc_list(struct buf *out, pid_t tid, uid_t uid, gid_t gid);

/* The text of DIR/<pid>/engines: one line per engine on pid (see docs/fuse.md). */
void ep_proc_engines_text(struct tracer *t, pid_t pid, struct buf *out);

#endif
