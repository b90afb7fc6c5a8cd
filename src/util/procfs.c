/*
 * procfs.c: what /proc says about processes, and who may debug them.
 *
 * The daemon usually runs as root, so it can ptrace anything; the check
 * here is what keeps one client from debugging another user's process
 * through it (the FUSE tree, the rendezvous sockets, vAttach). It mirrors
 * the kernel's ptrace_may_access() for an attach as far as /proc lets us
 * see it: CAP_SYS_PTRACE (in our user namespace), or the same real,
 * effective and saved uid and gid as the target, a dumpable target, and
 * no capability the caller lacks, under Yama's ptrace_scope.
 */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG	   0x00200000u /* PF_KTHREAD in /proc/<pid>/stat's flags */
#define CAP_SYS_PTRACE_BIT 19

/* Whole small /proc file into buf (NUL-terminated); bytes read or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* The value after "Key:" in /proc/<pid>/status text, or NULL. */
static const char *status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && line[klen] == ':')
			return line + klen + 1;
	}
	return NULL;
}

static int read_status(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return read_small(path, buf, len) > 0 ? 0 : -ENOENT;
}

/* State letter, parent and flags from /proc/<pid>/stat. */
static int read_stat(pid_t pid, char *state, pid_t *ppid, unsigned *flags)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && n != -ENOENT && n != -ESRCH ? (int)n : -ENOENT;
	p = strrchr(buf, ')'); /* the command name may hold anything */
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %u", state, ppid, flags) != 3)
		return -EIO;
	return 0;
}

pid_t proc_tgid(pid_t tid)
{
	char buf[4096];
	const char *v;

	if (tid <= 0 || read_status(tid, buf, sizeof(buf)) < 0)
		return 0;
	v = status_field(buf, "Tgid");
	return v ? (pid_t)atoi(v) : 0;
}

/* See procfs.h. */
enum proc_kind proc_kind(pid_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], state;
	unsigned flags;
	struct stat st;
	pid_t ppid;

	int err = pid > 0 ? read_stat(pid, &state, &ppid, &flags) : -ENOENT;

	if (err == -EMFILE || err == -ENFILE || err == -ENOMEM)
		return PROC_UNKNOWN; /* out of descriptors: nothing to say of pid */
	if (err < 0 || state == 'Z' || state == 'X')
		return PROC_NONE;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0)
		return PROC_NONE;
	*uid = st.st_uid;
	*gid = st.st_gid;
	if (flags & PF_KTHREAD_FLAG)
		return PROC_KTHREAD;
	return proc_tgid(pid) == pid ? PROC_LEADER : PROC_THREAD;
}

static bool same_user_ns(pid_t tid)
{
	char path[64], theirs[64], ours[64];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", tid);
	a = readlink(path, theirs, sizeof(theirs));
	b = readlink("/proc/self/ns/user", ours, sizeof(ours));
	return a > 0 && a == b && !memcmp(theirs, ours, (size_t)a);
}

/* See procfs.h. */
struct proc_caller proc_caller(pid_t tid, uid_t uid, gid_t gid)
{
	struct proc_caller c = {.tgid = proc_tgid(tid), .uid = uid, .gid = gid};
	char buf[4096];
	const char *v;

	if (read_small("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) > 0)
		c.yama = atoi(buf);
	/* a capability counts only in our user namespace: a container's root is not ours */
	if (tid > 0 && read_status(tid, buf, sizeof(buf)) == 0 && same_user_ns(tid)) {
		v = status_field(buf, "CapEff");
		c.cap_ptrace = v && (strtoull(v, NULL, 16) >> CAP_SYS_PTRACE_BIT) & 1;
		v = status_field(buf, "CapPrm");
		c.cap_prm = v ? strtoull(v, NULL, 16) : 0;
	}
	return c;
}

/* All of the "Uid:" (or "Gid:") line's real, effective and saved ids are id. */
static bool ids_are(const char *status, const char *key, unsigned id)
{
	const char *v = status_field(status, key);
	unsigned r, e, s;

	return v && sscanf(v, "%u %u %u", &r, &e, &s) == 3 && r == id && e == id && s == id;
}

/* Yama's scope 1: only an ancestor may attach. */
static bool is_ancestor(pid_t anc, pid_t pid)
{
	char state;
	unsigned flags;

	for (int depth = 0; anc > 0 && pid > 1 && depth < 4096; depth++) {
		if (read_stat(pid, &state, &pid, &flags) < 0)
			return false;
		if (pid == anc)
			return true;
	}
	return false;
}

/* See procfs.h. */
int proc_may_debug(const struct proc_caller *c, pid_t pid)
{
	const char *v;
	char buf[4096], path[64];
	struct stat st;

	if (c->yama >= 3)
		return -EACCES; /* nobody attaches, not even us */
	if (c->cap_ptrace)
		return 0;
	if (c->yama == 2 || read_status(pid, buf, sizeof(buf)) < 0)
		return -EACCES;
	if (!ids_are(buf, "Uid", c->uid) || !ids_are(buf, "Gid", c->gid))
		return -EACCES;
	/* its permitted capabilities must be the caller's too */
	v = status_field(buf, "CapPrm");
	if (!v || (strtoull(v, NULL, 16) & ~c->cap_prm))
		return -EACCES;
	/* not dumpable: the kernel hands /proc/<pid> to root */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0 || st.st_uid != c->uid)
		return -EACCES;
	if (c->yama == 1 && !is_ancestor(c->tgid, pid))
		return -EACCES;
	return 0;
}

/* See procfs.h. */
void proc_list_debuggable(struct buf *out, const struct proc_caller *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	uid_t ou;
	gid_t og;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		if (proc_kind((pid_t)pid, &ou, &og) != PROC_LEADER ||
		    proc_may_debug(c, (pid_t)pid) < 0)
			continue;
		buf_append(out, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
}

ssize_t proc_task_status(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n, got = 0;
	int fd;

	if (!len)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}
