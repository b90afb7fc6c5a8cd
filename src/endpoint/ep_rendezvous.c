/*
 * ep_rendezvous.c: RUNDIR/<pid>.sock, one per process utraced holds.
 *
 * ptrace allows one tracer; this is how a second client (another gdb, a
 * syscall tracer) finds the process utraced already holds and joins it as
 * an engine of its own. The socket is mode 0600 and owned by the process's
 * user, and every connecting peer is checked again with SO_PEERCRED: only
 * that user, or root, may join.
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

#define RDV_MAX_PIDS 1024

struct ep_rendezvous {
	struct ep_item item; /* kind EP_RENDEZVOUS */
	struct ep_rendezvous *next;
	pid_t pid;
	char path[108];
};

int ep_rundir(char *out, size_t len)
{
	const char *env = getenv("UTRACED_RUNDIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(out, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(out, len, "/run/utraced");
	else if (xdg && *xdg)
		n = snprintf(out, len, "%s/utraced", xdg);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (mkdir(out, geteuid() == 0 ? 0755 : 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Real uid and gid of a process, from /proc. */
static int proc_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		found += sscanf(line, "Uid: %u", uid) == 1;
		found += sscanf(line, "Gid: %u", gid) == 1;
	}
	fclose(f);
	return found == 2 ? 0 : -EIO;
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
	snprintf(r->path, sizeof(r->path), "%s/%d.sock", dir, pid);
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
	if (geteuid() == 0 && proc_owner(pid, &uid, &gid) == 0 && chown(r->path, uid, gid) < 0)
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

int ep_rendezvous_accept(struct ep_item *item, int *fd, pid_t *pid, struct ucred *peer)
{
	struct ep_rendezvous *r = (struct ep_rendezvous *)item;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	uid_t uid;
	gid_t gid;
	int c = accept4(item->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (c < 0)
		return -errno;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    proc_owner(r->pid, &uid, &gid) < 0 || (cred.uid != 0 && cred.uid != uid)) {
		close(c);
		return -EACCES;
	}
	*fd = c;
	*pid = r->pid;
	*peer = cred;
	return 0;
}
