/*
 * ep_rendezvous.c: RUNDIR/<pid>.sock, one per process utraced holds.
 *
 * ptrace allows one tracer; this is how a second client (another gdb, a
 * syscall tracer) finds the process utraced already holds and joins it as
 * an engine of its own. The socket is mode 0600 and owned by the process's
 * user, and every connecting peer is checked again with SO_PEERCRED: a
 * peer of another user than ours (and not root) must be one that could
 * ptrace the process itself (util/procfs.c), as for the FUSE tree.
 */
#include "ep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../util/rundir.h"

#define RDV_MAX_PIDS 1024

struct ep_rendezvous {
	struct ep_item item; /* kind EP_RENDEZVOUS */
	struct ep_rendezvous *next;
	pid_t pid;
	char path[108];
};

int ep_rundir(char *out, size_t len)
{
	int rc = rundir_of(geteuid(), out, len);

	if (rc < 0)
		return rc;
	if (mkdir(out, geteuid() == 0 ? 0755 : 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static struct ep_rendezvous *rdv_open(int epfd, pid_t pid)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct ep_rendezvous *r;
	char dir[80];
	uid_t uid;
	gid_t gid;
	int fd;

	if (ep_rundir(dir, sizeof(dir)) < 0 || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->pid = pid;
	r->item.kind = EP_RENDEZVOUS;
	if (rundir_socket(dir, pid, r->path, sizeof(r->path)) < 0) {
		free(r);
		return NULL;
	}
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", r->path);
	unlink(r->path); /* left by a daemon that died */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0 || listen(fd, 8) < 0) {
		if (fd >= 0)
			close(fd);
		free(r);
		return NULL;
	}
	chmod(r->path, 0600);
	if (geteuid() == 0 && proc_kind(pid, &uid, &gid) == PROC_LEADER &&
	    chown(r->path, uid, gid) < 0)
		perror("utraced: chown rendezvous socket");
	r->item.fd = fd;
	ep_watch(epfd, &r->item, EPOLLIN);
	return r;
}

static void rdv_close(int epfd, struct ep_rendezvous *r)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, r->item.fd, NULL);
	close(r->item.fd);
	unlink(r->path);
	free(r);
}

void ep_rendezvous_sync(struct ep_rendezvous **list, int epfd, struct tracer *t)
{
	pid_t pids[RDV_MAX_PIDS];
	size_t n = tracer_pids(t, pids, RDV_MAX_PIDS);
	struct ep_rendezvous **rp = list;

	if (n > RDV_MAX_PIDS)
		n = RDV_MAX_PIDS;
	while (*rp) { /* drop the gone */
		struct ep_rendezvous *r = *rp;
		size_t i;

		for (i = 0; i < n && pids[i] != r->pid; i++)
			;
		if (i < n) {
			rp = &r->next;
			continue;
		}
		*rp = r->next;
		rdv_close(epfd, r);
	}
	for (size_t i = 0; i < n; i++) { /* open the new */
		struct ep_rendezvous *r;

		for (r = *list; r && r->pid != pids[i]; r = r->next)
			;
		if (r || !(r = rdv_open(epfd, pids[i])))
			continue;
		r->next = *list;
		*list = r;
	}
}

void ep_rendezvous_free(struct ep_rendezvous **list, int epfd)
{
	while (*list) {
		struct ep_rendezvous *r = *list;

		*list = r->next;
		rdv_close(epfd, r);
	}
}

int ep_rendezvous_accept(struct ep_item *item, int *fd, struct ep_client *who)
{
	struct ep_rendezvous *r = (struct ep_rendezvous *)item;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct proc_caller c;
	int s = accept4(item->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (s < 0)
		return -errno;
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		goto refuse;
	c = proc_caller(cred.pid, cred.uid, cred.gid);
	if (cred.uid != 0 && cred.uid != geteuid() && proc_may_debug(&c, r->pid) < 0)
		goto refuse;
	*fd = s;
	who->pid = r->pid;
	who->caller = c;
	return 0;
refuse:
	close(s);
	return -EACCES;
}
