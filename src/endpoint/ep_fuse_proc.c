/*
 * ep_fuse_proc.c: the process questions behind the FUSE tree, answered
 * from /proc: which pids are processes, whose they are, whether a caller
 * may debug one, and the text of the `engines` file.
 *
 * The daemon usually runs as root, so it can ptrace anything; the check
 * here is what keeps one user from debugging another's process through
 * it. It mirrors the kernel's ptrace_may_access() as far as /proc lets us
 * see it: CAP_SYS_PTRACE (in our user namespace), or the same uid and gid
 * as the target and a dumpable target, under Yama's ptrace_scope.
 */
#include "ep_fuse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG	   0x00200000u /* PF_KTHREAD in /proc/<pid>/stat's flags */
#define CAP_SYS_PTRACE_BIT 19

/* Who opened or listed something, as far as the permission check needs. */
struct caller {
	pid_t tgid;
	uid_t uid;
	gid_t gid;
	bool cap_ptrace; /* CAP_SYS_PTRACE, effective, in our user namespace */
	int yama;	 /* ptrace_scope, 0 without Yama */
};

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

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	p = strrchr(buf, ')'); /* the command name may hold anything */
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %u", state, ppid, flags) != 3)
		return -EIO;
	return 0;
}

pid_t ep_proc_tgid(pid_t tid)
{
	char buf[4096];
	const char *v;

	if (tid <= 0 || read_status(tid, buf, sizeof(buf)) < 0)
		return 0;
	v = status_field(buf, "Tgid");
	return v ? (pid_t)atoi(v) : 0;
}

/* See ep_fuse.h. */
enum ep_proc_kind ep_proc_kind(pid_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], state;
	unsigned flags;
	struct stat st;
	pid_t ppid;

	if (pid <= 0 || read_stat(pid, &state, &ppid, &flags) < 0 || state == 'Z' || state == 'X')
		return EP_PROC_NONE;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0)
		return EP_PROC_NONE;
	*uid = st.st_uid;
	*gid = st.st_gid;
	if (flags & PF_KTHREAD_FLAG)
		return EP_PROC_KTHREAD;
	return ep_proc_tgid(pid) == pid ? EP_PROC_LEADER : EP_PROC_THREAD;
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

static struct caller caller_of(pid_t tid, uid_t uid, gid_t gid)
{
	struct caller c = {.tgid = ep_proc_tgid(tid), .uid = uid, .gid = gid};
	char buf[4096];
	const char *v;

	if (read_small("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) > 0)
		c.yama = atoi(buf);
	/* a capability counts only in our user namespace: a container's root is not ours */
	if (tid > 0 && read_status(tid, buf, sizeof(buf)) == 0 && same_user_ns(tid)) {
		v = status_field(buf, "CapEff");
		c.cap_ptrace = v && (strtoull(v, NULL, 16) >> CAP_SYS_PTRACE_BIT) & 1;
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

static int may_debug(const struct caller *c, pid_t pid)
{
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
	/* not dumpable: the kernel hands /proc/<pid> to root */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0 || st.st_uid != c->uid)
		return -EACCES;
	if (c->yama == 1 && !is_ancestor(c->tgid, pid))
		return -EACCES;
	return 0;
}

/* See ep_fuse.h. */
int ep_proc_may_debug(pid_t pid, pid_t tid, uid_t uid, gid_t gid)
{
	struct caller c = caller_of(tid, uid, gid);

	return may_debug(&c, pid);
}

/* See ep_fuse.h. */
void ep_proc_list(struct buf *out, pid_t tid, uid_t uid, gid_t gid)
{
	struct caller c = caller_of(tid, uid, gid);
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
		if (ep_proc_kind((pid_t)pid, &ou, &og) != EP_PROC_LEADER ||
		    may_debug(&c, (pid_t)pid) < 0)
			continue;
		buf_append(out, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
}

static const char *bp_kind(enum engine_bp_type type)
{
	switch (type) {
	case ENGINE_BP_HW:
		return "hw:";
	case ENGINE_BP_WRITE:
		return "write:";
	case ENGINE_BP_READ:
		return "read:";
	case ENGINE_BP_ACCESS:
		return "access:";
	default:
		return "";
	}
}

/* " breakpoints=A,hw:B watchpoints=write:C/4" for engine slot. */
static void put_bps(struct tracer *t, pid_t pid, int slot, struct buf *out)
{
	struct engine_info_bp bps[64];
	size_t n = engine_info_bps(t, pid, slot, bps, 64);
	const char *sep;

	if (n > 64)
		n = 64;
	for (int watch = 0; watch < 2; watch++) {
		buf_puts(out, watch ? " watchpoints=" : " breakpoints=");
		sep = "";
		for (size_t i = 0; i < n; i++) {
			bool w = bps[i].type >= ENGINE_BP_WRITE;

			if (w != (bool)watch)
				continue;
			buf_printf(out, "%s%s%#" PRIx64, sep, bp_kind(bps[i].type), bps[i].addr);
			if (w)
				buf_printf(out, "/%d", bps[i].len);
			sep = ",";
		}
		if (!*sep)
			buf_putc(out, '-');
	}
}

static void put_catches(struct tracer *t, pid_t pid, const struct engine_info *e, struct buf *out)
{
	long nrs[128];
	size_t n;

	buf_puts(out, " catch=");
	if (!e->catch_syscalls) {
		buf_putc(out, '-');
		return;
	}
	buf_puts(out, "syscalls:");
	if (e->catch_all) {
		buf_puts(out, "all");
		return;
	}
	n = engine_info_syscalls(t, pid, e->slot, nrs, 128);
	for (size_t i = 0; i < n && i < 128; i++)
		buf_printf(out, "%s%ld", i ? "," : "", nrs[i]);
	if (n > 128)
		buf_puts(out, ",...");
}

/* See ep_fuse.h. */
void ep_proc_engines_text(struct tracer *t, pid_t pid, struct buf *out)
{
	struct engine_info info[64];
	size_t n = engine_info_list(t, pid, info, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		const struct engine_info *e = &info[i];
		const char *state = e->dead	  ? "exited"
				    : e->observer ? "observing"
				    : e->stopped  ? "stopped"
						  : "running";

		buf_printf(out, "%d endpoint=%s", e->slot, e->name ? e->name : "-");
		if (e->peer_pid)
			buf_printf(out, " client=%d uid=%u", e->peer_pid, (unsigned)e->peer_uid);
		else
			buf_puts(out, " client=- uid=-");
		buf_printf(out, " state=%s", state);
		put_bps(t, pid, e->slot, out);
		put_catches(t, pid, e, out);
		buf_printf(out, " held_threads=%zu passed_signals=%d\n", e->nheld, e->npass);
	}
}
