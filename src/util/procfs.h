/*
 * procfs.h: what /proc says about processes, and who may debug them
 * (procfs.c). No ptrace: /proc only.
 */
#ifndef UTRACED_PROCFS_H
#define UTRACED_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"

enum proc_kind {
	PROC_NONE,    /* no such pid (or it is a zombie) */
	PROC_LEADER,  /* a thread-group leader: a process */
	PROC_THREAD,  /* a thread that is not the leader */
	PROC_KTHREAD, /* a kernel thread */
	PROC_UNKNOWN, /* /proc could not be read (we are out of descriptors) */
};

/*
 * What pid is, and who owns its entries: the owner of /proc/<pid> (its
 * effective ids, or root when it is not dumpable, which is what keeps
 * other users away from a setuid program).
 */
enum proc_kind proc_kind(pid_t pid, uid_t *uid, gid_t *gid);

/* The process a thread belongs to (its Tgid), or 0. */
pid_t proc_tgid(pid_t tid);

/* A thread's /proc/PID/task/TID/status, NUL-terminated in buf; its length, or -errno. */
ssize_t proc_task_status(pid_t pid, pid_t tid, char *buf, size_t len);

/*
 * A client, as far as the permission check needs: taken once, when it
 * comes, so that a later check does not read the ids of whatever reused
 * its tid.
 */
struct proc_caller {
	pid_t tgid;
	uid_t uid;
	gid_t gid;
	bool cap_ptrace;  /* CAP_SYS_PTRACE, effective, in our user namespace */
	uint64_t cap_prm; /* its permitted capabilities */
	int yama;	  /* ptrace_scope, 0 without Yama */
};

/* The caller thread tid with (file-system) ids uid and gid. */
struct proc_caller proc_caller(pid_t tid, uid_t uid, gid_t gid);

/* Could c ptrace pid (PTRACE_ATTACH)? 0 or -EACCES. */
int proc_may_debug(const struct proc_caller *c, pid_t pid);

/*
 * The processes (leaders, no kernel threads, not ourselves) c may debug,
 * as NUL-separated decimal names appended to out.
 */
void proc_list_debuggable(struct buf *out, const struct proc_caller *c);

#endif
