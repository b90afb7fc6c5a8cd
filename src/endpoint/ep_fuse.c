/*
 * ep_fuse.c: `utraced --mount DIR`, the RFC's /proc/<pid>/gdb without a
 * kernel patch: a FUSE file system with DIR/<pid>/gdb, which speaks RSP
 * (`target remote DIR/<pid>/gdb`), and DIR/<pid>/engines, who is attached.
 *
 * Each open of a gdb file is one gdb session and one engine; its release
 * (after the last close, also when the client was killed) detaches that
 * engine and the process runs on. Requests are read from the /dev/fuse fd
 * in the daemon's own epoll loop with libfuse's low-level API, so there is
 * no FUSE thread: a read with nothing to return is parked and answered
 * from ep_fuse_settle() when the session has output, as a socket read
 * would be. Kernel and libfuse details this depends on (direct_io, poll
 * notifications, FOPEN_STREAM, the tty ioctls gdb sends) are in
 * docs/fuse.md.
 */
#include "ep.h"
#include "ep_fuse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef UTRACED_NO_FUSE

#define FUSE_USE_VERSION 312
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
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
	struct gdb_session *s; /* NODE_GDB: its session (and engine) */
	struct buf text;       /* engines text, or directory names (NUL-separated) */
	fuse_req_t read_req;   /* a read parked until there is output */
	size_t read_size;
	pid_t read_tgid;	    /* ... by this process */
	bool read_intr;		    /* ... and interrupted (answer EINTR) */
	struct fuse_pollhandle *ph; /* a poller waiting for output */
};

struct ep_fuse {
	struct ep_item item; /* kind EP_FUSE: the /dev/fuse fd */
	struct fuse_session *se;
	struct fuse_buf buf;
	struct tracer *t;
	struct gdb_server *srv;
	struct ep_fuse_file *files;
	time_t started;
	char dir[4096];
};

static struct ep_fuse_file *file_of(struct fuse_file_info *fi)
{
	return (struct ep_fuse_file *)(uintptr_t)fi->fh;
}

/* Output for the client, or end of file once the session has no process left. */
static bool gdb_readable(struct ep_fuse_file *f)
{
	return f->s->rsp.out.len || !f->s->engine;
}

static void fill_attr(struct ep_fuse *fs, fuse_ino_t ino, uid_t uid, gid_t gid, struct stat *st)
{
	static const mode_t modes[] = {
		[NODE_ROOT] = S_IFDIR | 0555,
		[NODE_DIR] = S_IFDIR | 0500,
		[NODE_GDB] = S_IFREG | 0600,
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

	if (INO_NODE(ino) != NODE_ROOT && ep_proc_kind(INO_PID(ino), &uid, &gid) == EP_PROC_NONE)
		return -ENOENT;
	fill_attr(fs, ino, uid, gid, st);
	return 0;
}

/* Nothing is cached: the tree follows processes as they come and go. */
static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ep_fuse *fs = fuse_req_userdata(req);
	struct fuse_entry_param e = {0};
	char *end = NULL;
	long pid;

	if (INO_NODE(parent) == NODE_ROOT) {
		/* digits only, no leading zero: one name per pid */
		pid = *name >= '1' && *name <= '9' ? strtol(name, &end, 10) : 0;
		e.ino = pid > 0 && !*end && pid < (1L << 30) ? INO(pid, NODE_DIR) : 0;
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
	if (f->read_req)
		fuse_reply_err(f->read_req, EIO);
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	if (f->s) {
		gdb_session_free(f->s); /* its engine leaves; the process runs on */
		free(f->s);
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
	if (f->node == NODE_ROOT)
		ep_proc_list(&f->text, ctx->pid, ctx->uid, ctx->gid);
	else
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
					.st_mode = S_IFREG};
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
	struct ep_fuse *fs = fuse_req_userdata(req);
	struct ep_fuse_file *f = file_of(fi);

	(void)ino;
	if (fs->srv->debug && f->s)
		fprintf(stderr, "fuse: %d/gdb released\n", f->pid);
	file_free(fs, f);
	fuse_reply_err(req, 0);
}

/* Every close: nothing to do. Leaving happens at release, once. */
static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void on_read_interrupt(fuse_req_t req, void *data)
{
	struct ep_fuse_file *f = data;

	/* libfuse holds the request's lock here: answer later, in ep_fuse_settle() */
	if (f->read_req == req)
		f->read_intr = true;
}

/* Hand the client what the session has queued, at most size bytes. */
static void reply_output(struct ep_fuse_file *f, fuse_req_t req, size_t size)
{
	struct buf *out = &f->s->rsp.out;
	size_t n = out->len < size ? out->len : size;

	fuse_reply_buf(req, out->data, n);
	buf_consume(out, n);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ep_fuse_file *f = file_of(fi);

	(void)ino;
	if (f->node == NODE_ENGINES) {
		size_t len = f->text.len, start = off >= 0 && (size_t)off < len ? (size_t)off : len;

		fuse_reply_buf(req, f->text.data + start, len - start < size ? len - start : size);
	} else if (f->node != NODE_GDB) {
		fuse_reply_err(req, EISDIR);
	} else if (gdb_readable(f)) {
		reply_output(f, req, size);
	} else if (fi->flags & O_NONBLOCK) {
		fuse_reply_err(req, EAGAIN);
	} else if (f->read_req) {
		fuse_reply_err(req, EBUSY); /* one reader at a time, as one gdb */
	} else {
		f->read_req = req;
		f->read_size = size;
		f->read_tgid = ep_proc_tgid(fuse_req_ctx(req)->pid);
		f->read_intr = false;
		fuse_req_interrupt_func(req, on_read_interrupt, f);
	}
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *data, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct ep_fuse_file *f = file_of(fi);

	(void)ino;
	(void)off;
	if (f->node != NODE_GDB) {
		fuse_reply_err(req, EBADF);
		return;
	}
	gdb_session_input(f->s, (const uint8_t *)data, size);
	fuse_reply_write(req, size);
}

/* gdb waits for its replies with poll/select: without this ^C never arrives. */
static void op_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct ep_fuse_file *f = file_of(fi);
	unsigned revents = POLLOUT | POLLWRNORM;

	(void)ino;
	if (f->node != NODE_GDB || gdb_readable(f))
		revents |= POLLIN | POLLRDNORM;
	/*
	 * A handle is kept only by a poller told "not readable": one told
	 * "readable" does not wait, and notifying it would cost a write to
	 * the device for nothing (gdb selects before every read).
	 */
	if (ph && !(revents & POLLIN)) {
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
	} else if (ph) {
		fuse_pollhandle_destroy(ph);
	}
	fuse_reply_poll(req, revents);
}

/*
 * gdb takes a file that is not a socket for a serial line: it gets and
 * sets its termios and flushes it. FUSE forwards these with no data
 * (their numbers encode no size), so "done" is all there is to answer.
 */
static void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned flags, const void *in_buf, size_t in_bufsz,
		     size_t out_bufsz)
{
	(void)ino, (void)arg, (void)fi, (void)flags, (void)in_buf, (void)in_bufsz, (void)out_bufsz;
	switch (cmd) {
	case TCGETS:
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
	case TCFLSH:
	case TCSBRK:
	case TCXONC:
		fuse_reply_ioctl(req, 0, NULL, 0);
		break;
	default:
		fuse_reply_err(req, ENOTTY);
	}
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
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.poll = op_poll,
	.ioctl = op_ioctl,
	.create = op_create,
};

/*
 * A new gdb session on pid, attached as an engine of its own (joining the
 * process if another client already holds it), for the opener described
 * by in. 0 or -errno.
 */
static int open_gdb(struct ep_fuse *fs, struct ep_fuse_file *f, const struct fuse_in_header *in)
{
	pid_t opener = ep_proc_tgid((pid_t)in->pid);
	struct gdb_session *s;
	struct engine *e;
	int err;

	/*
	 * The attach waits for every thread to stop, and a thread blocked in
	 * one of our requests cannot stop until we answer: the opener itself,
	 * or a reader parked on another of our files.
	 */
	for (struct ep_fuse_file *g = fs->files; g; g = g->next)
		if (g->read_req && g->read_tgid == f->pid)
			return -EDEADLK;
	if (opener == f->pid)
		return -EDEADLK;
	if (!(s = malloc(sizeof(*s))))
		return -ENOMEM;
	gdb_session_init(s, fs->t, fs->srv);
	s->secondary = true;
	s->client.name = "fuse";
	gdb_session_set_peer(s, opener, in->uid, in->gid);
	e = engine_attach(fs->t, f->pid, &s->client, &err);
	if (!e) {
		gdb_session_free(s);
		free(s);
		return err == -ESRCH ? -ENOENT : err;
	}
	gdb_session_set_engine(s, e);
	f->s = s;
	return 0;
}

/* Checks, then the file's state. 0 with *flags for the open reply, or -errno. */
static int open_node(struct ep_fuse *fs, struct ep_fuse_file *f, const struct fuse_in_header *in,
		     int oflags, uint32_t *flags)
{
	uid_t uid;
	gid_t gid;
	int acc = oflags & O_ACCMODE;

	if (f->node == NODE_ROOT || f->node == NODE_DIR)
		return -EISDIR;
	switch (ep_proc_kind(f->pid, &uid, &gid)) {
	case EP_PROC_NONE:
		return -ENOENT;
	case EP_PROC_THREAD:
	case EP_PROC_KTHREAD:
		return -EINVAL;
	case EP_PROC_LEADER:
		break;
	}
	if (ep_proc_may_debug(f->pid, (pid_t)in->pid, in->uid, in->gid) < 0)
		return -EACCES;
	*flags = FOPEN_DIRECT_IO; /* no page cache: every read reaches us */
	if (f->node == NODE_ENGINES) {
		if (acc != O_RDONLY)
			return -EACCES;
		ep_proc_engines_text(fs->t, f->pid, &f->text);
		return 0;
	}
	/* a read-only open (grep -r, cat) must not stop the process by accident */
	if (acc != O_RDWR)
		return -EINVAL;
	/* a stream: no file position, so no f_pos lock between a reader and a writer */
	*flags |= FOPEN_NONSEEKABLE | FOPEN_STREAM;
	return open_gdb(fs, f, in);
}

/*
 * FUSE_OPEN is answered here rather than through libfuse, whose
 * fuse_file_info has no way to ask for FOPEN_STREAM. The reply is the
 * kernel's fuse_open_out after the out header.
 */
static void raw_open(struct ep_fuse *fs, const struct fuse_in_header *in,
		     const struct fuse_open_in *arg)
{
	struct fuse_out_header h = {.len = sizeof(h), .unique = in->unique};
	struct fuse_open_out out = {0};
	struct iovec iov[2] = {{&h, sizeof(h)}, {&out, sizeof(out)}};
	struct ep_fuse_file *f = file_new(fs, in->nodeid);
	int err = f ? open_node(fs, f, in, (int)arg->flags, &out.open_flags) : -ENOMEM;

	if (err) {
		h.error = err;
	} else {
		h.len += sizeof(out);
		out.fh = (uintptr_t)f;
	}
	if (fs->srv->debug && f && f->node == NODE_GDB)
		fprintf(stderr, "fuse: open %d/gdb by %d: %s\n", f->pid, in->pid, strerror(-err));
	/* the opener may have been killed meanwhile: then no release will come */
	if (writev(fuse_session_fd(fs->se), iov, err ? 1 : 2) < 0 || err) {
		if (f)
			file_free(fs, f);
	}
}

static void dispatch(struct ep_fuse *fs, size_t len)
{
	const struct fuse_in_header *in = fs->buf.mem;

	if (!(fs->buf.flags & FUSE_BUF_IS_FD) && len >= sizeof(*in) + sizeof(struct fuse_open_in) &&
	    in->opcode == FUSE_OPEN)
		raw_open(fs, in, (const struct fuse_open_in *)(in + 1));
	else
		fuse_session_process_buf(fs->se, &fs->buf);
}

/* See ep.h. */
bool ep_fuse_read(struct ep_fuse *fs)
{
	for (int i = 0; i < 64; i++) { /* then let the others have a turn */
		int n = fuse_session_receive_buf(fs->se, &fs->buf);

		if (n == -EAGAIN || n == -EINTR)
			return true;
		if (n <= 0 || fuse_session_exited(fs->se))
			return false;
		dispatch(fs, (size_t)n);
	}
	return true;
}

/* See ep.h. */
void ep_fuse_settle(struct ep_fuse *fs)
{
	for (struct ep_fuse_file *f = fs->files; f; f = f->next) {
		if (f->node != NODE_GDB)
			continue;
		gdb_trace_pump(f->s); /* a trace session: text into packets, held threads go */
		if (f->read_req && f->read_intr) {
			fuse_reply_err(f->read_req, EINTR);
			f->read_req = NULL;
		} else if (f->read_req && gdb_readable(f)) {
			reply_output(f, f->read_req, f->read_size);
			f->read_req = NULL;
		}
		if (f->ph && gdb_readable(f)) {
			fuse_lowlevel_notify_poll(f->ph);
			fuse_pollhandle_destroy(f->ph);
			f->ph = NULL;
		}
	}
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
struct ep_fuse *ep_fuse_open(const char *dir, struct tracer *t, struct gdb_server *srv, int epfd)
{
	struct ep_fuse *fs = calloc(1, sizeof(*fs));
	int fd;

	if (!fs || prepare_dir(dir, fs->dir) < 0)
		goto fail;
	fs->t = t;
	fs->srv = srv;
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

/*
 * See ep.h. The connection goes first: closing it fails whatever request a
 * process may still be blocked in, so the detaches that follow (which stop
 * every thread) cannot wait on one of ours.
 */
void ep_fuse_close(struct ep_fuse *fs, int epfd)
{
	if (!fs)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, fs->item.fd, NULL);
	for (struct ep_fuse_file *f = fs->files; f; f = f->next) {
		if (f->read_req)
			fuse_reply_err(f->read_req, EIO);
		f->read_req = NULL;
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
	fuse_session_unmount(fs->se);
	fuse_session_destroy(fs->se);
	while (fs->files)
		file_free(fs, fs->files);
	free(fs->buf.mem);
	free(fs);
}

#else /* built without libfuse3 */

struct ep_fuse *ep_fuse_open(const char *dir, struct tracer *t, struct gdb_server *srv, int epfd)
{
	(void)dir, (void)t, (void)srv, (void)epfd;
	fprintf(stderr, "utraced: --mount: this utraced was built without libfuse3 "
			"(install libfuse3-dev and rebuild)\n");
	return NULL;
}

bool ep_fuse_read(struct ep_fuse *fs)
{
	(void)fs;
	return false;
}

void ep_fuse_settle(struct ep_fuse *fs)
{
	(void)fs;
}

void ep_fuse_close(struct ep_fuse *fs, int epfd)
{
	(void)fs, (void)epfd;
}

#endif
