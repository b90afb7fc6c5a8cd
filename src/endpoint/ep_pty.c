/*
 * ep_pty.c: the pseudo-terminals behind DIR/<pid>/gdb.
 *
 * gdb takes a path that is not a socket for a serial line. Were the path a
 * FUSE file, each select, read and poll gdb makes around a packet would be
 * a request to the daemon and back; on a tty the kernel answers them and
 * only gdb's writes wake us. So DIR/<pid>/gdb is a symlink that ep_fuse.c
 * resolves, per caller, to the slave of a pty made here: the slave is the
 * caller's (chowned, mode 0600, raw), the master ours. The first byte
 * written to the slave starts a gdb session on the process (so a `cat` or
 * `grep -R` that opens it stops nothing); its last close ends the session.
 *
 * gdb resolves the path twice, stat() then open(): a pty that the same
 * thread got for the same process and that nobody opened yet is handed out
 * again. Opens are seen through inotify (IN_OPEN on the slave), read
 * before each such decision. A pty nobody opens goes after PTY_UNOPENED_MS.
 */
#include "ep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define PTY_UNOPENED_MS	     10000
#define PTY_MAX_PER_UID	     16 /* waiting for their first byte */
#define PTY_MAX		     256
#define PTY_SESSIONS_PER_UID 32	  /* started (not for root): each holds a descriptor of ours */
#define PTY_HANDED_GRACE_MS  1000 /* a pty handed out this recently is not taken back */

/* A pty resolved for a client, before its first byte. */
struct pty {
	struct ep_item item; /* kind EP_PTY: the master */
	struct pty *next;
	struct ep_client who;
	pid_t tid;	  /* the thread that resolved the link */
	int wd;		  /* inotify watch on the slave */
	bool opened;	  /* IN_OPEN seen: not handed out again, not expired */
	long long handed; /* CLOCK_MONOTONIC ms of the last hand-out */
	char path[32];	  /* /dev/pts/N */
};

struct ep_ptys {
	struct pty *list; /* newest first */
	size_t n;
	int inotify;
	int epfd;
	struct pty_live { /* sessions started, per uid */
		uid_t uid;
		unsigned n;
	} live[64];
	size_t nlive;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct ep_ptys *ep_ptys_new(int epfd)
{
	struct ep_ptys *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->epfd = epfd;
	p->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p->inotify < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* Unlink t from the list; close its master unless keep_master. */
static void pty_drop(struct ep_ptys *p, struct pty *t, bool keep_master)
{
	for (struct pty **tp = &p->list; *tp; tp = &(*tp)->next) {
		if (*tp == t) {
			*tp = t->next;
			break;
		}
	}
	p->n--;
	inotify_rm_watch(p->inotify, t->wd);
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, t->item.fd, NULL);
	if (!keep_master)
		close(t->item.fd);
	free(t);
}

void ep_ptys_free(struct ep_ptys *p)
{
	if (!p)
		return;
	while (p->list)
		pty_drop(p, p->list, false);
	close(p->inotify);
	free(p);
}

static void mark_opened(struct ep_ptys *p, int wd, bool all)
{
	for (struct pty *t = p->list; t; t = t->next)
		if (all || t->wd == wd)
			t->opened = true;
}

/*
 * The opens of slaves so far. An open is queued before open() returns, so
 * a client's open is known here before its next request reaches us.
 */
static void note_opens(struct ep_ptys *p)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(p->inotify, buf, sizeof(buf))) > 0) {
		for (char *q = buf; q + sizeof(struct inotify_event) <= buf + n;) {
			const struct inotify_event *ev = (const void *)q;

			/* events lost: take every pty for opened, none is handed out twice */
			mark_opened(p, ev->wd, ev->mask & IN_Q_OVERFLOW);
			q += sizeof(*ev) + ev->len;
		}
	}
}

/* See ep.h. */
int ep_ptys_expire(struct ep_ptys *p)
{
	long long now, next = -1;
	struct pty *t, *tnext;

	if (!p->list)
		return -1; /* the common case, once every pty is in use: no system call */
	now = now_ms();
	note_opens(p);
	for (t = p->list; t; t = tnext) {
		long long due = t->handed + PTY_UNOPENED_MS;

		tnext = t->next;
		if (t->opened)
			continue;
		if (due <= now)
			pty_drop(p, t, false);
		else if (next < 0 || due < next)
			next = due;
	}
	return next < 0 ? -1 : (int)(next - now);
}

static struct pty_live *live_of(struct ep_ptys *p, uid_t uid)
{
	for (size_t i = 0; i < p->nlive; i++)
		if (p->live[i].uid == uid)
			return &p->live[i];
	return NULL;
}

/* uid may start one more session: root always, others up to PTY_SESSIONS_PER_UID. */
static bool may_start(struct ep_ptys *p, uid_t uid)
{
	struct pty_live *l = live_of(p, uid);

	return uid == 0 || !l || l->n < PTY_SESSIONS_PER_UID;
}

static bool live_add(struct ep_ptys *p, uid_t uid)
{
	struct pty_live *l = live_of(p, uid);

	if (!l && p->nlive == sizeof(p->live) / sizeof(p->live[0]))
		return false;
	if (!l)
		l = &p->live[p->nlive++];
	l->uid = uid;
	l->n++;
	return true;
}

void ep_ptys_ended(struct ep_ptys *p, uid_t uid)
{
	struct pty_live *l = live_of(p, uid);

	if (l && --l->n == 0)
		*l = p->live[--p->nlive];
}

/*
 * Room for one more pty of uid: its oldest unopened one goes if it has too
 * many, unless it was handed out a moment ago (its client may be opening
 * it: its number must not go to someone else's pty meanwhile).
 */
static int make_room(struct ep_ptys *p, uid_t uid)
{
	struct pty *oldest = NULL;
	size_t mine = 0;

	if (!may_start(p, uid))
		return -EAGAIN;
	for (struct pty *t = p->list; t; t = t->next) {
		if (t->who.caller.uid != uid)
			continue;
		mine++;
		if (!t->opened)
			oldest = t;
	}
	if (mine >= PTY_MAX_PER_UID && oldest && now_ms() - oldest->handed > PTY_HANDED_GRACE_MS) {
		pty_drop(p, oldest, false);
		mine--;
	}
	return mine >= PTY_MAX_PER_UID || p->n >= PTY_MAX ? -EAGAIN : 0;
}

/*
 * A new pty whose slave only who.uid may open, raw (no echo, no signal
 * characters, no newline translation) before anyone can open it.
 */
static int pty_make(struct ep_ptys *p, struct pty *t)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	struct termios tio;
	int err = 0;

	if (m < 0)
		return -errno;
	t->wd = -1;
	err = -ptsname_r(m, t->path, sizeof(t->path)); /* (it returns the error) */
	if (err || tcgetattr(m, &tio) < 0)
		goto fail;
	cfmakeraw(&tio);
	if (tcsetattr(m, TCSANOW, &tio) < 0)
		goto fail;
	if (geteuid() == 0 && chown(t->path, t->who.caller.uid, t->who.caller.gid) < 0)
		goto fail;
	if (chmod(t->path, 0600) < 0)
		goto fail;
	/* watched before it can be opened: no open goes unseen */
	t->wd = inotify_add_watch(p->inotify, t->path, IN_OPEN);
	if (t->wd < 0 || unlockpt(m) < 0)
		goto fail;
	t->item = (struct ep_item){EP_PTY, m};
	if (ep_watch(p->epfd, &t->item, EPOLLIN) < 0)
		goto fail;
	return 0;
fail:
	if (!err)
		err = errno ? -errno : -EIO;
	if (t->wd >= 0)
		inotify_rm_watch(p->inotify, t->wd);
	close(m);
	return err;
}

/* See ep.h. */
int ep_ptys_offer(struct ep_ptys *p, const struct ep_client *who, pid_t tid, char *path, size_t len)
{
	struct pty *t;
	int err;

	ep_ptys_expire(p); /* reads the opens too */
	for (t = p->list; t; t = t->next)
		if (!t->opened && t->tid == tid && t->who.pid == who->pid &&
		    t->who.caller.uid == who->caller.uid && t->who.caller.gid == who->caller.gid)
			goto out;
	err = make_room(p, who->caller.uid);
	if (err < 0)
		return err;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->who = *who;
	t->tid = tid;
	err = pty_make(p, t);
	if (err < 0) {
		free(t);
		return err;
	}
	t->next = p->list;
	p->list = t;
	p->n++;
out:
	t->handed = now_ms(); /* its client opens it next: counted from now */
	if ((size_t)snprintf(path, len, "%s", t->path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* See ep.h. */
bool ep_ptys_take(struct ep_ptys *p, struct ep_item *item, struct ep_client *who, int *master)
{
	struct pty *t = (struct pty *)item;
	struct pollfd pfd = {.fd = item->fd, .events = POLLIN};

	uid_t uid;
	gid_t gid;

	/* bytes, and the slave still open: a client talks; a hang-up: it left */
	if (poll(&pfd, 1, 0) < 0 || !(pfd.revents & POLLIN) || (pfd.revents & POLLHUP)) {
		if (pfd.revents & (POLLHUP | POLLERR))
			pty_drop(p, t, false);
		return false;
	}
	/*
	 * The checks of the link again, with the caller as it was then: the pid
	 * may name another process by now. And the user's sessions: each holds
	 * one of our descriptors, which every user needs.
	 */
	if (proc_kind(t->who.pid, &uid, &gid) != PROC_LEADER ||
	    proc_may_debug(&t->who.caller, t->who.pid) < 0 || !may_start(p, t->who.caller.uid) ||
	    !live_add(p, t->who.caller.uid)) {
		pty_drop(p, t, false);
		return false;
	}
	*who = t->who;
	*master = item->fd;
	pty_drop(p, t, true);
	return true;
}
