/*
 * gdb_vfile: gdb's Host I/O packets (vFile:open, pread, fstat ...).
 *
 * With its default sysroot "target:", gdb reads the executable, every
 * shared library and some /proc files through these packets, so this is
 * how symbols reach a gdb that does not share our file system. Handles
 * given to gdb are indexes into s->vfile_fds; vFile:setfs makes path names
 * resolve inside another process's root (a container's view), using
 * openat2(RESOLVE_IN_ROOT) on /proc/PID/root so that absolute symlinks and
 * ".." stay inside that root.
 *
 * The client is not trusted: every number is range checked, path names
 * with a NUL are refused, at most ARRAY_SIZE(vfile_fds) files are open per
 * session, and reads are capped to one packet. Files are opened
 * O_NONBLOCK so that a FIFO cannot hang the event loop. utraced may run as
 * root for an unprivileged client: when the endpoint knows the client's
 * credentials (rendezvous socket, FUSE), each operation runs with the
 * client's fsuid/fsgid and no supplementary groups (as_client()). Over TCP
 * the client is unknown and gets what utraced itself may do, as with
 * gdbserver.
 */
#include "gdb_handlers.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gdb_fileio.h"

#define VFILE_MAX ((int64_t)(sizeof(((struct gdb_session *)0)->vfile_fds) / sizeof(int)))
/* Data bytes of a pread reply, after escaping: room for "F<count>;" too. */
#define VFILE_PREAD_MAX (RSP_MAX_PACKET - 32)

/* The arguments after "vFile:op:", consumed left to right. */
struct vargs {
	const char *p;
	const char *end;
};

/* A ',' must follow unless this is the last argument, which must end the packet. */
static int arg_next(struct vargs *a, bool last)
{
	if (last)
		return a->p == a->end ? 0 : -EINVAL;
	if (a->p == a->end || *a->p != ',')
		return -EINVAL;
	a->p++;
	return 0;
}

static int arg_int(struct vargs *a, int64_t min, int64_t max, int64_t *v, bool last)
{
	if (gdb_fileio_parse_int(&a->p, a->end, v) < 0 || *v < min || *v > max)
		return -EINVAL;
	return arg_next(a, last);
}

static int arg_path(struct vargs *a, char path[PATH_MAX], bool last)
{
	const char *start = a->p;
	int ret;

	while (a->p < a->end && *a->p != ',')
		a->p++;
	ret = gdb_fileio_decode_path(start, (size_t)(a->p - start), path, PATH_MAX);
	if (ret < 0)
		return ret;
	return arg_next(a, last);
}

/* A handle from the client to our fd, or -EBADF. */
static int arg_fd(struct gdb_session *s, struct vargs *a, int *slot, bool last)
{
	int64_t h;
	int ret = arg_int(a, 0, INT64_MAX, &h, last);

	if (ret < 0)
		return ret;
	if (h >= VFILE_MAX || s->vfile_fds[h] < 0)
		return -EBADF;
	*slot = (int)h;
	return s->vfile_fds[h];
}

static int reply_result(struct gdb_session *s, int64_t r)
{
	buf_printf(&s->reply, "F%" PRIx64, (uint64_t)r);
	return 0;
}

/* err is -errno; the reply carries gdb's number for it, in hex like every number. */
static int reply_error(struct gdb_session *s, int err)
{
	buf_reset(&s->reply);
	buf_printf(&s->reply, "F-1,%x", (unsigned)gdb_fileio_errno(-err));
	return 0;
}

/* A result with a binary attachment: "F<len>;<bytes>". */
static int reply_data(struct gdb_session *s, const void *data, size_t len)
{
	buf_printf(&s->reply, "F%zx;", len);
	buf_append(&s->reply, data, len);
	return 0;
}

static int open_in_root(int root, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT,
	};
	long fd;
	int tries = 0;

	do
		fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	while (fd < 0 && (errno == EINTR || (errno == EAGAIN && ++tries < 8)));
	if (fd < 0 && errno == ENOSYS) {
		/*
		 * Before Linux 5.6: plain lookup under the root directory.
		 * Absolute symlinks and ".." then resolve in our view, not
		 * the target's.
		 */
		while (*path == '/')
			path++;
		fd = openat(root, *path ? path : ".", flags, mode);
	}
	return fd < 0 ? -errno : (int)fd;
}

/*
 * open(2) in the file system view chosen by vFile:setfs: ours (pid 0), or
 * that of process s->vfile_pid. Returns an fd or -errno.
 */
static int vfile_open(struct gdb_session *s, const char *path, int flags, mode_t mode)
{
	char root_path[32];
	int root, fd;

	flags |= O_CLOEXEC;
	if (s->vfile_pid == 0) {
		do
			fd = open(path, flags, mode);
		while (fd < 0 && errno == EINTR);
		return fd < 0 ? -errno : fd;
	}
	snprintf(root_path, sizeof(root_path), "/proc/%d/root", (int)s->vfile_pid);
	root = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	fd = open_in_root(root, path, flags, mode);
	close(root);
	return fd;
}

static int op_open(struct gdb_session *s, struct vargs *a)
{
	char path[PATH_MAX];
	int64_t gflags, gmode;
	int flags, slot, fd, ret;
	mode_t mode;

	if ((ret = arg_path(a, path, false)) < 0 ||
	    (ret = arg_int(a, 0, INT64_MAX, &gflags, false)) < 0 ||
	    (ret = arg_int(a, 0, INT64_MAX, &gmode, true)) < 0 ||
	    (ret = gdb_fileio_open_flags((uint64_t)gflags, &flags)) < 0 ||
	    (ret = gdb_fileio_open_mode((uint64_t)gmode, &mode)) < 0)
		return reply_error(s, ret);
	for (slot = 0; slot < VFILE_MAX && s->vfile_fds[slot] >= 0; slot++)
		;
	if (slot == VFILE_MAX)
		return reply_error(s, -EMFILE);
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (or a reader). */
	fd = vfile_open(s, path, flags | O_NONBLOCK | O_NOCTTY, mode);
	if (fd < 0)
		return reply_error(s, fd);
	s->vfile_fds[slot] = fd;
	return reply_result(s, slot);
}

static int op_close(struct gdb_session *s, struct vargs *a)
{
	int slot;
	int fd = arg_fd(s, a, &slot, true);

	if (fd < 0)
		return reply_error(s, fd);
	s->vfile_fds[slot] = -1;
	/* Linux frees the descriptor even when close() reports an error. */
	if (close(fd) < 0 && errno != EINTR)
		return reply_error(s, -errno);
	return reply_result(s, 0);
}

static int op_pread(struct gdb_session *s, struct vargs *a)
{
	uint8_t data[VFILE_PREAD_MAX];
	int64_t count, off;
	ssize_t n;
	int slot, ret;
	int fd = arg_fd(s, a, &slot, false);

	if (fd < 0)
		return reply_error(s, fd);
	if ((ret = arg_int(a, 0, INT64_MAX, &count, false)) < 0 ||
	    (ret = arg_int(a, 0, INT64_MAX, &off, true)) < 0)
		return reply_error(s, ret);
	/* Fewer bytes than asked is fine: gdb asks again for the rest. */
	if (count > VFILE_PREAD_MAX)
		count = VFILE_PREAD_MAX;
	do
		n = pread(fd, data, (size_t)count, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return reply_error(s, -errno);
	/* The codec escapes on framing; keep the framed packet within bounds too. */
	return reply_data(s, data, gdb_fileio_fit_escaped(data, (size_t)n, VFILE_PREAD_MAX));
}

static int op_pwrite(struct gdb_session *s, struct vargs *a)
{
	int64_t off;
	ssize_t n;
	int slot, ret;
	int fd = arg_fd(s, a, &slot, false);

	if (fd < 0)
		return reply_error(s, fd);
	/* The data is binary (already unescaped): the rest of the packet, commas and all. */
	if ((ret = arg_int(a, 0, INT64_MAX, &off, false)) < 0)
		return reply_error(s, ret);
	do
		n = pwrite(fd, a->p, (size_t)(a->end - a->p), (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return reply_error(s, -errno);
	return reply_result(s, n);
}

static int reply_stat(struct gdb_session *s, const struct stat *st)
{
	uint8_t enc[GDB_FILEIO_STAT_SIZE];

	gdb_fileio_encode_stat(st, enc);
	return reply_data(s, enc, sizeof(enc));
}

static int op_fstat(struct gdb_session *s, struct vargs *a)
{
	struct stat st;
	int slot;
	int fd = arg_fd(s, a, &slot, true);

	if (fd < 0)
		return reply_error(s, fd);
	if (fstat(fd, &st) < 0)
		return reply_error(s, -errno);
	return reply_stat(s, &st);
}

/* stat and lstat by name (gdb 16 and later): through an O_PATH descriptor. */
static int do_stat(struct gdb_session *s, struct vargs *a, bool follow)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	if ((ret = arg_path(a, path, true)) < 0)
		return reply_error(s, ret);
	fd = vfile_open(s, path, O_PATH | (follow ? 0 : O_NOFOLLOW), 0);
	if (fd < 0)
		return reply_error(s, fd);
	ret = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	return ret < 0 ? reply_error(s, ret) : reply_stat(s, &st);
}

static int op_stat(struct gdb_session *s, struct vargs *a)
{
	return do_stat(s, a, true);
}

static int op_lstat(struct gdb_session *s, struct vargs *a)
{
	return do_stat(s, a, false);
}

static int op_unlink(struct gdb_session *s, struct vargs *a)
{
	char path[PATH_MAX];
	const char *base;
	char *slash;
	int dir, ret;

	if ((ret = arg_path(a, path, true)) < 0)
		return reply_error(s, ret);
	/* Look up the directory in the chosen view, then unlink the last component in it. */
	slash = strrchr(path, '/');
	if (!slash) {
		base = path;
		dir = vfile_open(s, ".", O_PATH | O_DIRECTORY, 0);
	} else {
		base = slash + 1;
		if (!*base)
			return reply_error(s, -EISDIR);
		if (slash == path) {
			dir = vfile_open(s, "/", O_PATH | O_DIRECTORY, 0);
		} else {
			*slash = '\0';
			dir = vfile_open(s, path, O_PATH | O_DIRECTORY, 0);
		}
	}
	if (dir < 0)
		return reply_error(s, dir);
	ret = unlinkat(dir, base, 0) < 0 ? -errno : 0;
	close(dir);
	return ret < 0 ? reply_error(s, ret) : reply_result(s, 0);
}

static int op_readlink(struct gdb_session *s, struct vargs *a)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	int fd, ret;

	if ((ret = arg_path(a, path, true)) < 0)
		return reply_error(s, ret);
	fd = vfile_open(s, path, O_PATH | O_NOFOLLOW, 0);
	if (fd < 0)
		return reply_error(s, fd);
	/* An empty name reads the symlink an O_PATH|O_NOFOLLOW descriptor refers to. */
	n = readlinkat(fd, "", target, sizeof(target));
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret == -ENOENT)
		ret = -EINVAL; /* not a symlink, as readlink(2) would say */
	if (ret < 0)
		return reply_error(s, ret);
	if ((size_t)n == sizeof(target))
		return reply_error(s, -ENAMETOOLONG);
	return reply_data(s, target, (size_t)n);
}

static int op_setfs(struct gdb_session *s, struct vargs *a)
{
	int64_t pid;
	int ret = arg_int(a, 0, INT_MAX, &pid, true);

	if (ret < 0)
		return reply_error(s, ret);
	/* Like gdbserver, accept any pid: a missing process shows at the next open. */
	s->vfile_pid = (pid_t)pid;
	return reply_result(s, 0);
}

static const struct {
	const char *name;
	int (*fn)(struct gdb_session *s, struct vargs *a);
} vfile_ops[] = {
	{"open", op_open},	   {"close", op_close}, {"pread", op_pread}, {"pwrite", op_pwrite},
	{"fstat", op_fstat},	   {"stat", op_stat},	{"lstat", op_lstat}, {"unlink", op_unlink},
	{"readlink", op_readlink}, {"setfs", op_setfs},
};

/*
 * The client's file-system credentials when it is a foreign user (utraced
 * may run as root for everybody): the kernel then checks every open,
 * unlink and readlink as it would for the client. setfsuid/setfsgid are
 * per thread and utraced's loop is one thread.
 */
struct client_fs {
	gid_t groups[64];
	int ngroups;
	bool switched;
};

static int client_fs_enter(struct gdb_session *s, struct client_fs *c)
{
	c->switched = false;
	if (!gdb_session_foreign(s))
		return 0;
	c->ngroups = getgroups(64, c->groups);
	if (c->ngroups < 0 || setgroups(0, NULL) < 0)
		return -EPERM;
	c->switched = true;
	setfsgid(s->peer.gid);
	setfsuid(s->client.peer_uid);
	if ((uid_t)setfsuid((uid_t)-1) != s->client.peer_uid)
		return -EPERM; /* could not become the client: do nothing */
	return 0;
}

static void client_fs_leave(struct client_fs *c)
{
	if (!c->switched)
		return;
	setfsuid(geteuid());
	setfsgid(getegid());
	setgroups((size_t)c->ngroups, c->groups);
}

static int as_client(struct gdb_session *s, int (*fn)(struct gdb_session *, struct vargs *),
		     struct vargs *a)
{
	struct client_fs c;
	int ret = client_fs_enter(s, &c);

	ret = ret < 0 ? reply_error(s, ret) : fn(s, a);
	client_fs_leave(&c);
	return ret;
}

/*
 * open(2) of a path in utraced's own view, checked as for the client (a
 * file the target writes for gdb: QTSave). Only a regular file: a FIFO
 * would block the daemon. An fd or -errno.
 */
int gdb_open_as_client(struct gdb_session *s, const char *path, int flags, mode_t mode)
{
	struct client_fs c;
	struct stat st;
	int fd = client_fs_enter(s, &c);

	if (fd == 0) {
		do
			fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, mode);
		while (fd < 0 && errno == EINTR);
		fd = fd < 0 ? -errno : fd;
	}
	client_fs_leave(&c);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int gdb_handle_vfile(struct gdb_session *s, const char *payload, size_t len)
{
	const char *end = payload + len;
	const char *op, *colon;
	struct vargs a;

	buf_reset(&s->reply);
	if (len < strlen("vFile:"))
		return 0;
	op = payload + strlen("vFile:");
	colon = memchr(op, ':', (size_t)(end - op));
	if (!colon)
		return 0; /* empty reply: not supported */
	a.p = colon + 1;
	a.end = end;
	for (size_t i = 0; i < sizeof(vfile_ops) / sizeof(vfile_ops[0]); i++)
		if (strlen(vfile_ops[i].name) == (size_t)(colon - op) &&
		    memcmp(vfile_ops[i].name, op, (size_t)(colon - op)) == 0)
			return as_client(s, vfile_ops[i].fn, &a);
	return 0;
}

void gdb_vfile_close_all(struct gdb_session *s)
{
	for (int64_t i = 0; i < VFILE_MAX; i++) {
		if (s->vfile_fds[i] >= 0)
			close(s->vfile_fds[i]);
		s->vfile_fds[i] = -1;
	}
	s->vfile_pid = 0;
}
