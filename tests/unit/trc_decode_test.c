/*
 * The strace core (src/strace/) against a fake process: syscall events go
 * in, strace's text must come out. The fake reader serves a few buffers
 * at made-up addresses; everything else is unreadable, as an unmapped
 * page would be.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "tap.h"
#include "strace/trc.h"
#include "util/buf.h"

struct region {
	uint64_t addr;
	const void *data;
	size_t len;
};

static struct region regions[16];
static int nregions;

static void map(uint64_t addr, const void *data, size_t len)
{
	if (nregions == (int)(sizeof(regions) / sizeof(regions[0])))
		abort(); /* a test error: more regions than room */
	regions[nregions++] = (struct region){addr, data, len};
}

static ssize_t fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	int i;

	(void)ctx;
	for (i = 0; i < nregions; i++) {
		const struct region *r = &regions[i];

		if (addr >= r->addr && addr < r->addr + r->len) {
			size_t n = r->addr + r->len - addr < len ? r->addr + r->len - addr : len;

			memcpy(buf, (const char *)r->data + (addr - r->addr), n);
			return (ssize_t)n;
		}
	}
	return -1;
}

static int fake_fd_path(void *ctx, int fd, char *out, size_t outlen)
{
	(void)ctx;
	snprintf(out, outlen, fd == AT_FDCWD ? "/cwd" : "/file%d", fd);
	return 0;
}

static struct buf out;
static const struct trc_reader rd = {NULL, fake_read, fake_fd_path, NULL};

static void sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	buf_append(&out, s, n);
}

static struct trc_who who(pid_t tid)
{
	struct trc_who w = {tid, TRC_PERS_64, &rd, {0, 0}, 0, false};

	return w;
}

/* One whole syscall of thread 100: the line it prints. */
static const char *call(struct trc *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
			uint64_t a4, uint64_t a5, int64_t ret)
{
	uint64_t args[6] = {a0, a1, a2, a3, a4, a5};
	struct trc_who w = who(100);

	buf_reset(&out);
	trc_syscall_entry(t, &w, nr, args);
	trc_syscall_exit(t, &w, ret);
	return out.data;
}

static struct trc *new_trc(void (*tweak)(struct trc_opts *))
{
	struct trc_opts o;

	trc_opts_init(&o);
	if (tweak)
		tweak(&o);
	return trc_new(&o, sink, NULL);
}

static void short_strings(struct trc_opts *o)
{
	o->strsize = 4;
}

static void fds(struct trc_opts *o)
{
	o->decode_fds = true;
}

static void hex_non_ascii(struct trc_opts *o)
{
	o->xstrings = 1;
	o->decode_fds = true;
}

static void hex_all(struct trc_opts *o)
{
	o->xstrings = 2;
	o->decode_fds = true;
}

static void failed_only(struct trc_opts *o)
{
	o->only_fail = true;
}

static void test_lines(void)
{
	static const char text[] = "a\"b\\\n\001\0019\377";
	static const char path[] = "/etc/passwd";
	struct trc *t = new_trc(NULL);

	map(0x1000, text, sizeof(text) - 1);
	map(0x2000, path, sizeof(path));
	is_str(call(t, SYS_write, 1, 0x1000, 9, 0, 0, 0, 9),
	       "write(1, \"a\\\"b\\\\\\n\\1\\19\\377\", 9)        = 9\n",
	       "write: escapes, short octal");
	is_str(call(t, SYS_openat, (uint64_t)AT_FDCWD, 0x2000, O_RDONLY | O_CLOEXEC, 0, 0, 0, 3),
	       "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3\n", "openat flags");
#ifdef SYS_open /* not in asm-generic's table (arm64) */
	is_str(call(t, SYS_open, 0x2000, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, 0, 0, -ENOENT),
	       "open(\"/etc/passwd\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = -1 ENOENT (No such file or "
	       "directory)\n",
	       "open with a mode, failing");
#endif
	is_str(call(t, SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    (uint64_t)-1, 0, 0x7f0000000000),
	       "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = "
	       "0x7f0000000000\n",
	       "mmap: flags, hex return");
	is_str(call(t, SYS_read, 3, 0x1000, 100, 0, 0, 0, 3),
	       "read(3, \"a\\\"b\", 100)                    = 3\n",
	       "read: data at exit, as much as returned");
	is_str(call(t, SYS_read, 3, 0x9000, 100, 0, 0, 0, 3),
	       "read(3, 0x9000, 100)                    = 3\n", "unreadable buffer: its address");
	is_str(call(t, SYS_getpid, 0, 0, 0, 0, 0, 0, 100),
	       "getpid()                                = 100\n", "no arguments");
	is_str(call(t, 1000, 1, 2, 3, 4, 5, 6, 0),
	       "syscall_0x3e8(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = 0\n", "unknown syscall: raw");
	is_str(call(t, SYS_close, 3, 0, 0, 0, 0, 0, -512),
	       "close(3)                                = ? ERESTARTSYS (To be restarted if "
	       "SA_RESTART is set)\n",
	       "restart codes");
	trc_free(t);

	t = new_trc(short_strings);
	is_str(call(t, SYS_write, 1, 0x1000, 9, 0, 0, 0, 9),
	       "write(1, \"a\\\"b\\\\\"..., 9)                = 9\n", "-s 4 cuts with ...");
	trc_free(t);

	t = new_trc(fds);
	is_str(call(t, SYS_close, 3, 0, 0, 0, 0, 0, 0),
	       "close(3</file3>)                        = 0\n", "-y: the fd's path");
	trc_free(t);
}

/* -x: a string with a byte other than printable ASCII and \t\n\v\f\r all in hex; -xx: all. */
static void test_hex(void)
{
	static const char mixed[] = "a\001\377b\n";
	static const char plain[] = "ab\n\t";
	struct trc *t = new_trc(hex_non_ascii);

	map(0x3000, mixed, sizeof(mixed) - 1);
	map(0x4000, plain, sizeof(plain) - 1);
	is_str(call(t, SYS_write, 1, 0x3000, 5, 0, 0, 0, 5),
	       "write(1</file1>, \"\\x61\\x01\\xff\\x62\\x0a\", 5) = 5\n",
	       "-x: a non-ASCII byte puts the whole string in hex");
	is_str(call(t, SYS_write, 1, 0x4000, 4, 0, 0, 0, 4),
	       "write(1</file1>, \"ab\\n\\t\", 4)           = 4\n",
	       "-x: printable text and white space stay as they are");
	trc_free(t);

	t = new_trc(hex_all);
	is_str(call(t, SYS_write, 1, 0x4000, 4, 0, 0, 0, 4),
	       "write(1<\\x2f\\x66\\x69\\x6c\\x65\\x31>, \"\\x61\\x62\\x0a\\x09\", 4) = 4\n",
	       "-xx: every string in hex, the fd's path too");
	trc_free(t);
}

/* sendmsg: a control message of a type not decoded, and bytes left after it. */
static void test_msghdr(void)
{
	static const char data[] = "hi";
	static const uint64_t iov[2] = {0x5000, 2};
	static const uint64_t ctl[4] = {20, 1 | (uint64_t)99 << 32}; /* SOL_SOCKET, type 99 */
	static const uint64_t msg[7] = {0, 0, 0x5100, 1, 0x5200, sizeof(ctl), 0};
	static const uint64_t ctl17[3] = {17, 1 | (uint64_t)99 << 32, 0};
	static const uint64_t msg17[7] = {0, 0, 0x5100, 1, 0x5500, 17, 0};
	struct trc *t = new_trc(NULL);

	map(0x5500, ctl17, sizeof(ctl17));
	map(0x5000, data, 2);
	map(0x5100, iov, sizeof(iov));
	map(0x5200, ctl, sizeof(ctl));
	map(0x5300, msg, sizeof(msg));
	is_str(call(t, SYS_sendmsg, 3, 0x5300, 0, 0, 0, 0, -EINVAL),
	       "sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hi\", iov_len=2}], "
	       "msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=0x63 /* "
	       "SCM_??? */}, ... /* 0x5218 */], msg_controllen=32, msg_flags=0}, 0) = -1 EINVAL "
	       "(Invalid argument)\n",
	       "sendmsg: an unknown control message, then what is left as an address");
	/* cmsg_len 17 = msg_controllen: its aligned length (24) runs past the end. */
	map(0x5400, msg17, sizeof(msg17));
	is_str(call(t, SYS_sendmsg, 3, 0x5400, 0, 0, 0, 0, -EINVAL),
	       "sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hi\", iov_len=2}], "
	       "msg_iovlen=1, msg_control=[{cmsg_len=17, cmsg_level=SOL_SOCKET, cmsg_type=0x63 /* "
	       "SCM_??? */}], msg_controllen=17, msg_flags=0}, 0) = -1 EINVAL (Invalid argument)\n",
	       "sendmsg: a control message whose aligned length passes msg_controllen");
	is_str(call(t, SYS_sendmsg, 3, 0x9000, 0, 0, 0, 0, -EFAULT),
	       "sendmsg(3, 0x9000, 0)                   = -1 EFAULT (Bad address)\n",
	       "sendmsg: an unreadable msghdr");
	trc_free(t);
}

static void trace_paths(struct trc_opts *o)
{
	char err[64];

	trc_add_path(o, "/etc/passwd", err, sizeof(err));
	trc_add_path(o, "/file4", err, sizeof(err));
}

/* -P: a path argument, or an fd argument open on the path (fake: fd N is /fileN). */
static void test_paths(void)
{
	struct trc *t = new_trc(trace_paths);

	is_str(call(t, SYS_openat, (uint64_t)AT_FDCWD, 0x2000, O_RDONLY, 0, 0, 0, 4),
	       "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 4\n", "-P: a call naming the path");
	is_str(call(t, SYS_close, 4, 0, 0, 0, 0, 0, 0),
	       "close(4)                                = 0\n",
	       "-P: a call on an fd open on a path");
	is_str(call(t, SYS_close, 3, 0, 0, 0, 0, 0, 0), "", "-P: not another fd");
	is_str(call(t, SYS_getpid, 0, 0, 0, 0, 0, 0, 100), "", "-P: not a call without paths");
	trc_free(t);
}

static void test_threads(void)
{
	struct trc *t = new_trc(NULL);
	uint64_t args[6] = {0, 0x1000, 5};
	struct trc_who a = who(100), b = who(101);
	siginfo_t si;

	buf_reset(&out);
	trc_thread_new(t, 100);
	trc_thread_new(t, 101);
	trc_syscall_entry(t, &a, SYS_read, args);
	args[0] = 1;
	trc_syscall_entry(t, &b, SYS_write, args);
	trc_syscall_exit(t, &b, 5);
	trc_syscall_exit(t, &a, 3);
	is_str(out.data,
	       "[pid   100] read(0,  <unfinished ...>\n"
	       "[pid   101] write(1, \"a\\\"b\\\\\\n\", 5)     = 5\n"
	       "[pid   100] <... read resumed>\"a\\\"b\", 5) = 3\n",
	       "unfinished and resumed across threads");

	buf_reset(&out);
	args[0] = 0;
	trc_syscall_entry(t, &b, SYS_exit_group, args);
	trc_exited(t, &b, 0);
	is_str(out.data,
	       "[pid   101] exit_group(0)               = ?\n[pid   101] +++ exited with 0 +++\n",
	       "exit_group: = ? then +++ exited");

	buf_reset(&out);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR1;
	si.si_code = SI_USER;
	si.si_pid = 7;
	trc_signal(t, &a, &si);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGCHLD;
	si.si_code = CLD_EXITED;
	si.si_pid = 8;
	si.si_stime = 123;
	trc_signal(t, &a, &si);
	trc_killed(t, &a, SIGKILL, false);
	is_str(out.data,
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=7, si_uid=0} ---\n"
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=8, si_uid=0, "
	       "si_status=0, "
	       "si_utime=0, si_stime=123 /* 1.23 s */} ---\n"
	       "+++ killed by SIGKILL +++\n",
	       "signals (a child's CPU time in seconds too) and death (one thread left: no "
	       "prefix)");
	trc_free(t);
}

/* -ff: an output per task (trc_split.c); -r there counts from any task's line. */
struct split_file {
	pid_t tid;
	bool again;
	bool closed;
	struct buf text;
};
static struct split_file files[4];
static int nfiles;

static void *split_open(void *ctx, pid_t tid, bool again)
{
	struct split_file *f = &files[nfiles++];

	(void)ctx;
	*f = (struct split_file){.tid = tid, .again = again};
	buf_init(&f->text);
	return f;
}

static void split_write(void *ctx, const char *s, size_t n)
{
	buf_append(&((struct split_file *)ctx)->text, s, n);
}

static void split_close(void *ctx, void *wctx)
{
	(void)ctx;
	((struct split_file *)wctx)->closed = true;
}

static void test_split(void)
{
	static const struct trc_split_io io = {NULL, split_open, split_write, split_close};
	uint64_t args[6] = {0, 0x1000, 5};
	struct trc_who a = who(100), b = who(101);
	struct trc_opts o;
	struct trc_split *s;
	struct trc_sink sink;
	struct trc *t;

	trc_opts_init(&o);
	o.relative = true;
	s = trc_split_new(&o, &io);
	sink = trc_split_sink(s);
	t = trc_new_sink(&o, &sink);
	trc_thread_new(t, 100);
	trc_thread_new(t, 101);
	a.ts.tv_sec = 10;
	trc_syscall_entry(t, &a, SYS_read, args);
	args[0] = 1;
	b.ts = (struct timespec){10, 250000000};
	trc_syscall_entry(t, &b, SYS_write, args);
	trc_syscall_exit(t, &b, 5);
	a.ts = (struct timespec){11, 0};
	trc_syscall_exit(t, &a, 3);
	b.ts = (struct timespec){11, 999750000};
	trc_exited(t, &b, 0);			    /* and forgotten */
	trc_syscall_entry(t, &b, SYS_getpid, args); /* after its forgetting */
	trc_syscall_exit(t, &b, 101);
	trc_free(t);
	trc_split_free(s);
	is_int(nfiles, 3, "-ff: an output per task, and one more when a task comes back");
	is_str(files[0].text.data, "     0.000000 read(0, \"a\\\"b\", 5)        = 3\n",
	       "-ff: task 100's line whole in its own output, no prefix, no unfinished");
	is_str(files[1].text.data,
	       "     0.250000 write(1, \"a\\\"b\\\\\\n\", 5)   = 5\n"
	       "     1.749750 +++ exited with 0 +++\n",
	       "-ff -r: task 101's lines, timed from the last line started in any output");
	ok(files[1].closed && !files[1].again, "-ff: a task's output closes when it is forgotten");
	ok(files[2].tid == 101 && files[2].again && files[2].closed,
	   "-ff: ... and opens again, to append, for a later event");
	for (int i = 0; i < nfiles; i++)
		buf_free(&files[i].text);
}

static void test_staging(void)
{
	struct trc *t = new_trc(failed_only);

	is_str(call(t, SYS_close, 3, 0, 0, 0, 0, 0, 0), "", "-Z hides a success");
	is_str(call(t, SYS_close, 3, 0, 0, 0, 0, 0, -EBADF),
	       "close(3)                                = -1 EBADF (Bad file descriptor)\n",
	       "-Z shows a failure");
	trc_free(t);
}

static void test_filters(void)
{
	struct trc_opts o;
	char err[128];

	trc_opts_init(&o);
	ok(trc_traces_all(&o, TRC_PERS_64), "default: every syscall");
	is_int(trc_parse_trace(&o, "%file", err, sizeof(err)), 0, "%%file parses");
	ok(trc_set_has(&o.trace[TRC_PERS_64], SYS_openat), "%%file has openat");
	ok(trc_set_has(&o.trace[TRC_PERS_64], SYS_execve), "%%file has execve");
	ok(!trc_set_has(&o.trace[TRC_PERS_64], SYS_read), "%%file has no read");
	is_int(trc_parse_trace(&o, "!write,%memory", err, sizeof(err)), 0, "negation parses");
	ok(!trc_set_has(&o.trace[TRC_PERS_64], SYS_write) &&
		   !trc_set_has(&o.trace[TRC_PERS_64], SYS_mmap) &&
		   trc_set_has(&o.trace[TRC_PERS_64], SYS_read),
	   "!write,%%memory: all but those");
	is_int(trc_parse_trace(&o, "bogus", err, sizeof(err)), -1, "unknown name refused");
	is_str(err, "invalid system call 'bogus'", "... with strace's message");
	is_int(trc_parse_trace(&o, "?bogus,close", err, sizeof(err)), 0, "?name: ignored");
	is_int(trc_traced_nrs(&o, TRC_PERS_64, NULL, 0), 1, "one syscall left");
	is_int(trc_parse_signals(&o, "!SIGCHLD,usr1", err, sizeof(err)), 0, "signal set parses");
	ok(!trc_set_has(&o.signals, SIGCHLD) && !trc_set_has(&o.signals, SIGUSR1) &&
		   trc_set_has(&o.signals, SIGTERM),
	   "signal set: all but CHLD and USR1");
}

static void test_tables(void)
{
	is_str(trc_syscall_name(TRC_PERS_64, SYS_read), "read",
	       "the native table: SYS_read is read");
	is_str(trc_syscall_name(TRC_PERS_64, SYS_openat), "openat", "  SYS_openat openat");
#ifdef __x86_64__
	is_str(trc_syscall_name(TRC_PERS_64, 0), "read", "x86-64 0 is read");
	is_str(trc_syscall_name(TRC_PERS_32, 3), "read", "i386 3 is read");
#else
	ok(trc_syscall_max(TRC_PERS_32) == 0, "no compat table");
	is_int(trc_syscall_nr(TRC_PERS_64, "open"), -1, "asm-generic's table: no open");
	is_int(trc_syscall_nr(TRC_PERS_64, "newfstatat"), 79, "  newfstatat is 79");
	is_int(trc_syscall_nr(TRC_PERS_64, "syscalls"), -1, "  __NR_syscalls is no name");
#endif
	is_int(trc_syscall_nr(TRC_PERS_64, "execve"), SYS_execve, "execve's number");
	is_str(trc_errno_name(ENOENT), "ENOENT", "errno names");
	is_str(trc_errno_name(EAGAIN), "EAGAIN", "EAGAIN, not its alias");
	is_str(trc_signal_name(32), "SIGRTMIN", "32 is SIGRTMIN");
	is_str(trc_signal_name(35), "SIGRT_3", "35 is SIGRT_3");
	is_int(trc_signal_nr("TERM"), SIGTERM, "TERM without SIG");
}

static void dump_fds(struct trc_opts *o)
{
	char err[64];

	trc_parse_fds(&o->read_fds, "3", err, sizeof(err));
	trc_parse_fds(&o->write_fds, "!!!3,20001", err, sizeof(err)); /* 5, and 20000 too */
	o->strsize = 4;
}

/* -e read=/write=: strace's dump after the line, cut where memory ends. */
static void test_dumps(void)
{
	static const char data[] = "hello world, this is 20+ bytes\n";
	static const uint64_t iov[4] = {0x7000, 3, 0x7003, 40};
	struct trc *t = new_trc(dump_fds);

	map(0x7000, data, sizeof(data) - 1);
	map(0x7100, iov, sizeof(iov));
	is_str(call(t, SYS_read, 3, 0x7000, 64, 0, 0, 0, 18),
	       "read(3, \"hell\"..., 64)"
	       "                  = 18\n"
	       " | 00000  68 65 6c 6c 6f 20 77 6f  72 6c 64 2c 20 74 68 69  hello world, thi |\n"
	       " | 00010  73 20                                             s                |\n",
	       "read=3: the bytes the call returned");
	is_str(call(t, SYS_read, 3, 0x7000, 64, 0, 0, 0, -EAGAIN),
	       "read(3, 0x7000, 64)                     = -1 EAGAIN (Resource temporarily "
	       "unavailable)\n",
	       "... nothing when it failed");
	is_str(call(t, SYS_read, 4, 0x7000, 64, 0, 0, 0, 2),
	       "read(4, \"he\", 64)                       = 2\n", "... nor for another fd");
	is_str(call(t, SYS_writev, 5, 0x7100, 2, 0, 0, 0, -EPIPE),
	       "writev(5, [{iov_base=\"hel\", iov_len=3}, {iov_base=\"lo w\"..., iov_len=40}], 2) "
	       "= "
	       "-1 EPIPE (Broken pipe)\n"
	       " * 3 bytes in buffer 0\n"
	       " | 00000  68 65 6c                                          hel              |\n"
	       " * 40 bytes in buffer 1\n",
	       "write=!3: writev buffer by buffer, failed or not; unreadable data ends the dump");
	is_str(call(t, SYS_write, 20000, 0x7000, 2, 0, 0, 0, 2),
	       "write(20000, \"he\", 2)                   = 2\n"
	       " | 00000  68 65                                             he               |\n",
	       "... and fds past 1023");
	is_str(call(t, SYS_write, 20001, 0x7000, 2, 0, 0, 0, 2),
	       "write(20001, \"he\", 2)                   = 2\n", "... but the one it names");
	trc_free(t);
}

int main(void)
{
	buf_init(&out);
	test_lines();
	test_hex();
	test_msghdr();
	test_paths();
	test_threads();
	test_split();
	test_staging();
	test_filters();
	test_tables();
	test_dumps();
	buf_free(&out);
	return done_testing();
}
