/*
 * Host I/O packets (src/gdb/gdb_vfile.c) against real files in a scratch
 * directory: replies as gdbserver formats them, and the defences against
 * a hostile client (bad numbers, NULs in names, too many files, FIFOs,
 * escaping a process's root through vFile:setfs). The handler uses
 * nothing from the engine, so the files are included and run on a bare
 * session.
 */
#include "../../src/gdb/gdb_fileio.c"
#include "../../src/gdb/gdb_vfile.c"

#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tap.h"

static struct gdb_session s;
static char dir[64];

/* Send a vFile packet (printf format); the reply, NUL-terminated, is in s.reply. */
static __attribute__((format(printf, 1, 2))) const char *req(const char *fmt, ...)
{
	char pkt[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(pkt, sizeof(pkt), fmt, ap);
	va_end(ap);
	gdb_handle_vfile(&s, pkt, (size_t)n);
	return s.reply.data ? s.reply.data : "";
}

/* Same with a binary tail of len bytes (pwrite data). */
static const char *req_bin(const char *head, const void *data, size_t len)
{
	char pkt[8192];
	size_t n = strlen(head);

	memcpy(pkt, head, n);
	memcpy(pkt + n, data, len);
	gdb_handle_vfile(&s, pkt, n + len);
	return s.reply.data ? s.reply.data : "";
}

/* A path in the scratch directory, hex encoded for the packet. */
static const char *hexpath(const char *name)
{
	static char out[2][PATH_MAX * 2];
	static int which;
	char path[PATH_MAX];
	char *o = out[which ^= 1];

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (size_t i = 0; path[i]; i++)
		sprintf(o + 2 * i, "%02x", (unsigned char)path[i]);
	return o;
}

static void write_file(const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fwrite(data, 1, len, f);
	fclose(f);
}

static void test_basic(void)
{
	char path[PATH_MAX];
	uint8_t enc[GDB_FILEIO_STAT_SIZE];
	char want[4 + GDB_FILEIO_STAT_SIZE];
	struct stat st;

	write_file("data", "hello #$}* world", 16);
	is_str(req("vFile:open:%s,0,0", hexpath("data")), "F0", "open: first handle is 0");
	is_str(req("vFile:pread:0,5,0"), "F5;hello", "pread 5 bytes");
	is_str(req("vFile:pread:0,100,6"), "Fa;#$}* world", "pread to the end, binary as is");
	is_str(req("vFile:pread:0,100,10"), "F0;", "pread at EOF: empty attachment");
	is_str(req("vFile:pread:0,0,0"), "F0;", "pread of 0 bytes");
	is_str(req("vFile:pread:0,10,-1"), "F-1,16", "negative offset: EINVAL");
	is_str(req("vFile:pread:0,1ffffffffffffffff,0"), "F-1,16", "count overflow: EINVAL");
	is_str(req("vFile:pread:0,10"), "F-1,16", "missing offset: EINVAL");
	is_str(req("vFile:pread:0,10,0,1"), "F-1,16", "extra argument: EINVAL");

	snprintf(path, sizeof(path), "%s/data", dir);
	stat(path, &st);
	gdb_fileio_encode_stat(&st, enc);
	memcpy(want, "F40;", 4);
	memcpy(want + 4, enc, sizeof(enc));
	req("vFile:fstat:0");
	is_mem(s.reply.data, s.reply.len, want, sizeof(want), "fstat: F40; and gdb's struct stat");

	is_str(req("vFile:close:0"), "F0", "close");
	is_str(req("vFile:close:0"), "F-1,9", "close again: EBADF");
	is_str(req("vFile:pread:0,1,0"), "F-1,9", "pread closed: EBADF");
	is_str(req("vFile:fstat:10"), "F-1,9", "fstat of an unknown handle: EBADF");
	is_str(req("vFile:close:ffffffffff"), "F-1,9", "huge handle: EBADF");
	is_str(req("vFile:close:-1"), "F-1,16", "negative handle: EINVAL");

	is_str(req("vFile:open:%s,0,0", hexpath("nothere")), "F-1,2", "open missing: ENOENT");
	is_str(req("vFile:open:%s,1,0", hexpath("")), "F-1,15", "open dir for writing: EISDIR");
	is_str(req("vFile:open:%s,1000,0", hexpath("data")), "F-1,16", "unknown flag: EINVAL");
	is_str(req("vFile:open:%s,3,0", hexpath("data")), "F-1,16", "access mode 3: EINVAL");
	is_str(req("vFile:open:%s00,0,0", hexpath("data")), "F-1,16", "NUL in name: EINVAL");
	is_str(req("vFile:open:%s0,0,0", hexpath("data")), "F-1,16", "odd hex: EINVAL");
	is_str(req("vFile:open:zz,0,0"), "F-1,16", "bad hex: EINVAL");
	is_str(req("vFile:open:,0,0"), "F-1,2", "empty name: ENOENT");
	is_str(req("vFile:open:%s", hexpath("data")), "F-1,16", "missing flags: EINVAL");
	is_str(req("vFile:open:2f,0,0,5"), "F-1,16", "extra argument: EINVAL");
	is_str(req("vFile:stat:"), "F-1,2", "stat of an empty name: ENOENT");
}

static void test_write(void)
{
	const char bin[] = "a,b\0#$}*\xff";
	char back[64];

	is_str(req("vFile:open:%s,e01,1a4", hexpath("new")), "F0", "create exclusive");
	is_str(req("vFile:open:%s,e01,1a4", hexpath("new")), "F-1,11", "again: EEXIST");
	req_bin("vFile:pwrite:0,0,", bin, sizeof(bin));
	is_str(s.reply.data, "Fa", "pwrite binary data with comma and NUL");
	is_str(req_bin("vFile:pwrite:0,3,", "", 0), "F0", "pwrite nothing");
	is_str(req("vFile:pwrite:0,-1,x"), "F-1,16", "pwrite at a negative offset: EINVAL");
	is_str(req("vFile:close:0"), "F0", "close");
	is_str(req("vFile:open:%s,0,0", hexpath("new")), "F0", "reopen read-only");
	req("vFile:pread:0,40,0");
	memcpy(back, "Fa;", 3);
	memcpy(back + 3, bin, sizeof(bin));
	is_mem(s.reply.data, s.reply.len, back, 3 + sizeof(bin), "data read back");
	is_str(req("vFile:pwrite:0,0,x"), "F-1,9", "pwrite to a read-only file: EBADF");
	req("vFile:close:0");

	char big[20000];

	memset(big, '#', sizeof(big));
	write_file("hashes", big, sizeof(big));
	req("vFile:open:%s,0,0", hexpath("hashes"));
	req("vFile:pread:0,100000,0");
	ok(s.reply.len > 5 && s.reply.len <= RSP_MAX_PACKET,
	   "pread of escaped bytes: reply within a packet (%zu)", s.reply.len);
	ok(2 * (s.reply.len - strlen(s.reply.data)) <= VFILE_PREAD_MAX,
	   "...and so is its escaped form");
	req("vFile:close:0");
}

static void test_names(void)
{
	char path[PATH_MAX + 32], target[PATH_MAX];

	snprintf(target, sizeof(target), "%s/data", dir);
	snprintf(path, sizeof(path), "%s/link", dir);
	ok(symlink(target, path) == 0, "symlink made");
	req("vFile:readlink:%s", hexpath("link"));
	snprintf(path, sizeof(path), "F%zx;%s", strlen(target), target);
	is_str(s.reply.data, path, "readlink");
	is_str(req("vFile:readlink:%s", hexpath("data")), "F-1,16", "readlink of a file: EINVAL");
	is_str(req("vFile:readlink:%s", hexpath("none")), "F-1,2", "readlink missing: ENOENT");

	req("vFile:stat:%s", hexpath("link"));
	ok(s.reply.len == 68 && (uint8_t)s.reply.data[4 + 10] == 0x81,
	   "stat follows the link (S_IFREG)");
	req("vFile:lstat:%s", hexpath("link"));
	ok(s.reply.len == 68 && (uint8_t)s.reply.data[4 + 10] == 0x01 &&
		   (uint8_t)s.reply.data[4 + 11] == 0xff,
	   "lstat reports the link itself (0777, no type gdb knows)");

	is_str(req("vFile:unlink:%s", hexpath("new")), "F0", "unlink");
	is_str(req("vFile:unlink:%s", hexpath("new")), "F-1,2", "unlink again: ENOENT");
	is_str(req("vFile:unlink:%s2f", hexpath("data")), "F-1,15", "unlink name/: EISDIR");
	is_str(req("vFile:bogus:00"), "", "unknown operation: empty reply");
	is_str(req("vFile:open"), "", "no operation: empty reply");
}

static void test_limits(void)
{
	char path[PATH_MAX];
	int64_t i;

	for (i = 0; i < VFILE_MAX; i++)
		if (strcmp(req("vFile:open:%s,0,0", hexpath("data")), "F-1,18") == 0)
			break;
	is_int(i, VFILE_MAX, "%d files open", (int)VFILE_MAX);
	is_str(req("vFile:open:%s,0,0", hexpath("data")), "F-1,18", "one more: EMFILE");
	gdb_vfile_close_all(&s);
	for (i = 0; i < VFILE_MAX && s.vfile->fds[i] < 0; i++)
		;
	is_int(i, VFILE_MAX, "close_all frees every handle");

	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0600);
	alarm(5); /* a blocking open would hang the daemon: fail loudly instead */
	is_str(req("vFile:open:%s,1,0", hexpath("fifo")), "F-1,270f",
	       "FIFO without a reader: ENXIO, unknown to gdb");
	is_str(req("vFile:open:%s,0,0", hexpath("fifo")), "F0", "FIFO opens without a writer");
	is_str(req("vFile:pread:0,10,0"), "F-1,1d", "...and pread says ESPIPE");
	alarm(0);
	gdb_vfile_close_all(&s);
}

/* A child in its own root (s's scratch dir), via a user namespace if we are not root. */
static pid_t chrooted_child(void)
{
	int pfd[2];
	char c = 0;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (geteuid() != 0 && unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (chroot(dir) < 0 || chdir("/") < 0)
			_exit(1);
		c = 1;
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1 || c != 1) {
		if (pid > 0)
			waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pfd[0]);
	return pid;
}

static void test_setfs(void)
{
	char path[PATH_MAX];
	pid_t child;

	is_str(req("vFile:setfs:-1"), "F-1,16", "setfs to a negative pid: EINVAL");
	is_str(req("vFile:setfs:80000000"), "F-1,16", "setfs beyond pid_t: EINVAL");
	is_str(req("vFile:setfs:%x", (unsigned)getpid()), "F0", "setfs to our own process");
	is_str(req("vFile:open:%s,0,0", hexpath("data")), "F0", "...its view is ours");
	is_str(req("vFile:pread:0,5,0"), "F5;hello", "...same file");
	gdb_vfile_close_all(&s);
	is_int(s.vfile->pid, 0, "close_all resets setfs");

	child = chrooted_child();
	if (child < 0) {
		diag("cannot chroot a child (no root, no user namespaces): skipping");
		ok(1, "# SKIP root view");
		return;
	}
	/* Inside the child's root "/data" is our dir/data, and "/abs" a symlink to it. */
	snprintf(path, sizeof(path), "%s/abs", dir);
	ok(symlink("/data", path) == 0, "symlink /abs made");
	req("vFile:setfs:%x", (unsigned)child);
	is_str(req("vFile:open:%s,0,0", hexpath("/data")), "F0", "setfs: path in the child's root");
	is_str(req("vFile:pread:0,5,0"), "F5;hello", "...is our scratch file");
	is_str(req("vFile:open:%s,0,0", hexpath("/abs")), "F1",
	       "absolute symlink resolves in the child's root");
	is_str(req("vFile:open:%s,0,0", hexpath("/../../../../data")), "F2",
	       "'..' cannot climb out of the child's root");
	is_str(req("vFile:readlink:%s", hexpath("/abs")), "F5;/data", "readlink in the root");
	is_str(req("vFile:unlink:%s", hexpath("/abs")), "F0", "unlink in the root");
	ok(access(path, F_OK) < 0, "...removed our dir/abs");
	gdb_vfile_close_all(&s);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	req("vFile:setfs:%x", (unsigned)child);
	is_str(req("vFile:open:%s,0,0", hexpath("/data")), "F-1,2",
	       "setfs to a dead process: ENOENT at open");
	gdb_vfile_close_all(&s);
}

static void cleanup(void)
{
	const char *names[] = {"data", "new", "hashes", "link", "fifo", "abs"};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/utraced-vfile-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	buf_init(&s.reply);
	test_basic();
	test_write();
	test_names();
	test_limits();
	test_setfs();
	cleanup();
	gdb_vfile_free(&s);
	buf_free(&s.reply);
	return done_testing();
}
