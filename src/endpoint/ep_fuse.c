/*
 * ep_fuse.c: `utraced --mount DIR`, the RFC's /proc/<pid>/gdb without a
 * kernel patch: a FUSE file system with DIR/<pid>/gdb, which speaks RSP
 * (`target remote DIR/<pid>/gdb`), and DIR/<pid>/engines, who is attached.
 *
 * DIR/<pid>/gdb is a symlink, resolved anew for every caller (symlinks are
 * not cached) to a pty of its own (ep_pty.c): the checks (which process,
 * whose, who may debug it) are made here, and their errors are what the
 * caller's open() fails with. Requests are read from the /dev/fuse fd in
 * the daemon's own epoll loop with libfuse's low-level API, so there is no
 * FUSE thread. Why a pty and not a file that speaks RSP itself: docs/fuse.md.
 */
#include "ep.h"
#include "ep_fuse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* See ep_fuse.h. */
pid_t ep_fuse_name_pid(const char *name)
{
	char *end = NULL;
	long pid;

	/* digits only, no leading zero: one name per pid */
	if (*name < '1' || *name > '9')
		return 0;
	pid = strtol(name, &end, 10);
	return !*end && pid > 0 && pid < (1L << 30) ? (pid_t)pid : 0;
}

#ifndef UTRACED_NO_FUSE

#define FUSE_USE_VERSION 312
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Inode numbers: 1 is the root, then per pid its directory and two files. */
enum node { NODE_ROOT, NODE_DIR, NODE_GDB, NODE_ENGINES };
#define INO(pid, node) (((fuse_ino_t)(pid) << 2) | (node))
#define INO_PID(ino)   ((pid_t)((ino) >> 2))
#define INO_NODE(ino)  ((ino) == FUSE_ROOT_ID ? NODE_ROOT : (enum node)((ino)&3))

/* One open file or directory; fh is its address. */
struct ep_fuse_file {
	struct ep_fuse_file *next;
	enum node node;
	pid_t pid;
	struct buf text; /* engines text, or directory names (NUL-separated) */
};

struct ep_fuse {
	struct ep_item item; /* kind EP_FUSE: the /dev/fuse fd */
	struct fuse_session *se;
	struct fuse_buf buf;
	struct tracer *t;
	struct ep_ptys *ptys;
	struct ep_fuse_file *files;
	time_t started;
	char dir[4096];
};

static struct ep_fuse_file *file_of(struct fuse_file_info *fi)
{
	return (struct ep_fuse_file *)(uintptr_t)fi->fh;
}

static void fill_attr(struct ep_fuse *fs, fuse_ino_t ino, uid_t uid, gid_t gid, struct stat *st)
{
	static const mode_t modes[] = {
		[NODE_ROOT] = S_IFDIR | 0555,
		[NODE_DIR] = S_IFDIR | 0500,
		[NODE_GDB] = S_IFLNK | 0777, /* what a symlink's mode always is */
		[NODE_ENGINES] = S_IFREG | 0400,
	};
	enum node node = INO_NODE(ino);

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = modes[node];
	st->st_nlink = node == NODE_ROOT || node == NODE_DIR ? 2 : 1;
	st->st_uid = uid;
	st->st_gid = gid;
	st->st_atime = st->st_mtime = st->st_ctime = fs->started;
}

/* Attributes of ino; -ENOENT when its process is gone. */
static int node_attr(struct ep_fuse *fs, fuse_ino_t ino, struct stat *st)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	enum proc_kind kind =
		INO_NODE(ino) == NODE_ROOT ? PROC_LEADER : proc_kind(INO_PID(ino), &uid, &gid);

	if (kind == PROC_NONE)
		return -ENOENT;
	if (kind == PROC_UNKNOWN)
		return -EMFILE;
	fill_attr(fs, ino, uid, gid, st);
	return 0;
}

/* Nothing is cached: the tree follows processes as they come and go. */
static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	struct fuse_entry_param e = {0};
	pid_t pid;

	if (INO_NODE(parent) == NODE_ROOT) {
		pid = ep_fuse_name_pid(name);
		e.ino = pid ? INO(pid, NODE_DIR) : 0;
	} else if (INO_NODE(parent) == NODE_DIR) {
		e.ino = !strcmp(name, "gdb")	   ? INO(INO_PID(parent), NODE_GDB)
			: !strcmp(name, "engines") ? INO(INO_PID(parent), NODE_ENGINES)
						   : 0;
	}
	if (!e.ino || node_attr(fs, e.ino, &e.attr) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	struct stat st;
	int err = node_attr(fs, ino, &st);

	(void)fi;
	if (err < 0)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, 0);
}

static struct ep_fuse_file *file_new(struct ep_fuse *fs, fuse_ino_t ino)
{
	struct ep_fuse_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->node = INO_NODE(ino);
	f->pid = INO_PID(ino);
	buf_init(&f->text);
	f->next = fs->files;
	fs->files = f;
	return f;
}

static void file_free(struct ep_fuse *fs, struct ep_fuse_file *f)
{
	for (struct ep_fuse_file **fp = &fs->files; *fp; fp = &(*fp)->next) {
		if (*fp == f) {
			*fp = f->next;
			break;
		}
	}
	buf_free(&f->text);
	free(f);
}

/* A snapshot of the names in a directory, so that readdir's offsets hold. */
static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct ep_fuse_file *f;
	struct stat st;

	if (node_attr(fs, ino, &st) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (!(f = file_new(fs, ino))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (f->node == NODE_ROOT) {
		struct proc_caller c = proc_caller(ctx->pid, ctx->uid, ctx->gid);

		proc_list_debuggable(&f->text, &c);
	} else
		buf_append(&f->text, "gdb\0engines", sizeof("gdb\0engines"));
	fi->fh = (uintptr_t)f;
	fuse_reply_open(req, fi);
}

/* Offsets are entry indexes: ".", "..", then the snapshot's names. */
static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct ep_fuse_file *f = file_of(fi);
	const char *name = f->text.data, *end = name ? name + f->text.len : NULL;
	char *out = malloc(size ? size : 1);
	size_t used = 0, ent;

	if (!out) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (off_t i = 0; i < 2 || name < end; i++) {
		struct stat st = {.st_ino = ino, .st_mode = S_IFDIR};
		const char *n = i == 0 ? "." : "..";

		if (i >= 2) {
			n = name;
			name += strlen(name) + 1;
			if (f->node == NODE_ROOT)
				st.st_ino = INO(atoi(n), NODE_DIR);
			else
				st = (struct stat){
					.st_ino = INO(f->pid, *n == 'g' ? NODE_GDB : NODE_ENGINES),
					.st_mode = *n == 'g' ? S_IFLNK : S_IFREG};
		}
		if (i < off)
			continue;
		ent = fuse_add_direntry(req, out + used, size - used, n, &st, i + 1);
		if (ent > size - used)
			break;
		used += ent;
	}
	fuse_reply_buf(req, out, used);
	free(out);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	file_free(fuse_req_userdata(req), file_of(fi));
	fuse_reply_err(req, 0);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ep_fuse_file *f = file_of(fi);
	size_t len = f->text.len, start = off >= 0 && (size_t)off < len ? (size_t)off : len;

	(void)ino;
	fuse_reply_buf(req, f->text.data + start, len - start < size ? len - start : size);
}

/*
 * What pid is, and whether the caller may debug it: 0, or the errno its
 * open of DIR/<pid>/gdb or DIR/<pid>/engines fails with.
 */
static int check_access(pid_t pid, const struct proc_caller *c)
{
	uid_t uid;
	gid_t gid;

	switch (proc_kind(pid, &uid, &gid)) {
	case PROC_NONE:
		return -ENOENT;
	case PROC_THREAD:
	case PROC_KTHREAD:
		return -EINVAL;
	case PROC_UNKNOWN:
		return -EMFILE;
	case PROC_LEADER:
		break;
	}
	return proc_may_debug(c, pid) < 0 ? -EACCES : 0;
}

/*
 * DIR/<pid>/gdb: a pty for this caller. The attach waits for every thread
 * to stop, and a thread blocked in one of our requests cannot stop before
 * we answer it: a process may not debug itself this way.
 */
static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct ep_client who = {INO_PID(ino), proc_caller(ctx->pid, ctx->uid, ctx->gid)};
	char path[64];
	int err = INO_NODE(ino) == NODE_GDB ? check_access(who.pid, &who.caller) : -EINVAL;

	if (!err && who.caller.tgid == who.pid)
		err = -EDEADLK;
	if (!err)
		err = ep_ptys_offer(fs->ptys, &who, ctx->pid, path, sizeof(path));
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_readlink(req, path);
}

/* DIR/<pid>/engines: a snapshot of the text, read-only. */
static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct proc_caller c = proc_caller(ctx->pid, ctx->uid, ctx->gid);
	struct ep_fuse_file *f;
	int err = INO_NODE(ino) == NODE_ENGINES ? check_access(INO_PID(ino), &c) : -EISDIR;

	if (!err && (fi->flags & O_ACCMODE) != O_RDONLY)
		err = -EACCES;
	if (!err && !(f = file_new(fs, ino)))
		err = -ENOMEM;
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	ep_engines_text(fs->t, f->pid, &f->text);
	fi->fh = (uintptr_t)f;
	fi->direct_io = 1; /* no page cache: each open reads the text of its time */
	if (fuse_reply_open(req, fi) < 0)
		file_free(fs, f); /* the opener was killed meanwhile: no release will come */
}

/* open(O_CREAT) of a name that is not there: as in /proc, there is no such file. */
static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	fuse_reply_err(req, ENOENT);
}

static const struct fuse_lowlevel_ops fuse_ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_release,
	.readlink = op_readlink,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.create = op_create,
};

/* See ep.h. */
bool ep_fuse_read(struct ep_fuse *fs)
{
	for (int i = 0; i < 64; i++) { /* then let the others have a turn */
		int n = fuse_session_receive_buf(fs->se, &fs->buf);

		if (n == -EAGAIN || n == -EINTR)
			return true;
		if (n <= 0 || fuse_session_exited(fs->se))
			return false;
		fuse_session_process_buf(fs->se, &fs->buf);
	}
	return true;
}

/* A mount point from /proc/self/mountinfo, with its \ooo escapes undone. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Some FUSE file system (a live one: stat() answered) is mounted on dir. */
static bool fuse_mounted_on(const char *dir)
{
	char line[8192], mnt[4096], type[256];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*d %*d %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 3, "%255s", type) != 1)
			continue;
		unescape(mnt);
		found = !strcmp(mnt, dir) && !strncmp(type, "fuse", 4);
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * A daemon that died without unmounting leaves a mount whose every access
 * fails with ENOTCONN; take it away (lazily: its old users may still hold
 * files there) so that we can mount in its place.
 */
static int unmount_stale(const char *dir)
{
	int status;
	pid_t pid;

	fprintf(stderr, "utraced: %s: replacing a stale mount\n", dir);
	if (geteuid() == 0)
		return umount2(dir, MNT_DETACH) < 0 ? -errno : 0;
	pid = fork();
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", "-z", "--", dir, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EBUSY;
}

/* DIR made ready to mount on: created, stale mount gone; its absolute path into abs. */
static int prepare_dir(const char *dir, char *abs)
{
	struct stat st;

	if (strchr(dir, ':')) {
		fprintf(stderr,
			"utraced: --mount %s: the path must not contain ':' (gdb would "
			"take DIR/<pid>/gdb for HOST:PORT)\n",
			dir);
		return -EINVAL;
	}
	if (stat(dir, &st) < 0 && errno == ENOTCONN && unmount_stale(dir) < 0) {
		fprintf(stderr, "utraced: %s: cannot remove the stale mount: %s\n", dir,
			strerror(errno));
		return -EBUSY;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "utraced: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (!realpath(dir, abs)) {
		fprintf(stderr, "utraced: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (strchr(abs, ':')) {
		fprintf(stderr, "utraced: --mount %s: its real path %s has a ':'\n", dir, abs);
		return -EINVAL;
	}
	if (fuse_mounted_on(abs)) {
		fprintf(stderr, "utraced: %s: already mounted (is another utraced serving it?)\n",
			abs);
		return -EBUSY;
	}
	return 0;
}

static struct fuse_session *mount_session(struct ep_fuse *fs)
{
	/* as root every user is served: the kernel checks modes, open checks again */
	char opts[96], *argv[] = {"utraced", "-o", opts, NULL};
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;

	snprintf(opts, sizeof(opts), "%sdefault_permissions,fsname=utraced,subtype=utraced",
		 geteuid() == 0 ? "allow_other," : "");
	se = fuse_session_new(&args, &fuse_ops, sizeof(fuse_ops), fs);
	fuse_opt_free_args(&args);
	if (se && fuse_session_mount(se, fs->dir) < 0) {
		fuse_session_destroy(se);
		se = NULL;
	}
	return se;
}

/* See ep.h. */
struct ep_fuse *ep_fuse_open(const char *dir, struct tracer *t, struct ep_ptys *ptys, int epfd)
{
	struct ep_fuse *fs = calloc(1, sizeof(*fs));
	int fd;

	if (!fs || prepare_dir(dir, fs->dir) < 0)
		goto fail;
	fs->t = t;
	fs->ptys = ptys;
	fs->started = time(NULL);
	fs->se = mount_session(fs);
	if (!fs->se) {
		fprintf(stderr, "utraced: cannot mount on %s\n", fs->dir);
		goto fail;
	}
	fd = fuse_session_fd(fs->se);
	/* requests are read when epoll says so; programs we launch must not inherit it */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fs->item = (struct ep_item){EP_FUSE, fd};
	ep_watch(epfd, &fs->item, EPOLLIN);
	fprintf(stderr, "Mounted on %s\n", fs->dir);
	return fs;
fail:
	free(fs);
	return NULL;
}

/* See ep.h. */
void ep_fuse_close(struct ep_fuse *fs, int epfd)
{
	if (!fs)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, fs->item.fd, NULL);
	fuse_session_unmount(fs->se);
	fuse_session_destroy(fs->se);
	while (fs->files)
		file_free(fs, fs->files);
	free(fs->buf.mem);
	free(fs);
}

#else /* built without libfuse3 */

struct ep_fuse *ep_fuse_open(const char *dir, struct tracer *t, struct ep_ptys *ptys, int epfd)
{
	(void)dir, (void)t, (void)ptys, (void)epfd;
	fprintf(stderr, "utraced: --mount: this utraced was built without libfuse3 "
			"(install libfuse3-dev and rebuild)\n");
	return NULL;
}

bool ep_fuse_read(struct ep_fuse *fs)
{
	(void)fs;
	return false;
}

void ep_fuse_close(struct ep_fuse *fs, int epfd)
{
	(void)fs, (void)epfd;
}

#endif
