/*
 * rundir.h: where a daemon puts its rendezvous sockets, RUNDIR/<pid>.sock
 * (rundir.c). One rule for the daemon that makes them
 * (src/endpoint/ep_rendezvous.c) and for ustrace, which looks for them
 * (src/ustrace/ustrace_join.c).
 */
#ifndef UTRACED_RUNDIR_H
#define UTRACED_RUNDIR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The run directory of a daemon whose effective uid is uid:
 * $UTRACED_RUNDIR if set, else /run/utraced for root, else
 * $XDG_RUNTIME_DIR/utraced (ours: uid is root or our own). Nothing is
 * created. Returns 0, -ENOENT (neither variable set for a user) or
 * -ENAMETOOLONG.
 */
int rundir_of(uid_t uid, char *out, size_t len);

/* dir/<pid>.sock into out: 0 or -ENAMETOOLONG. */
int rundir_socket(const char *dir, pid_t pid, char *out, size_t len);

#endif
