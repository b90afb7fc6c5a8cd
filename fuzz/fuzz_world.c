/*
 * fuzz_world.c: the fake-kernel world of the dispatcher harnesses and the
 * guard around them (see fuzz_world.h).
 *
 * The guard: this file defines open(), unlink(), unlinkat(), syscall(),
 * kill(), tgkill(), fork() and execve(), which the utraced objects linked
 * into a harness then call instead of libc's (as the fake kernel does for
 * ptrace()). Opens that could write, create or truncate, and any open
 * under /dev or /sys (a device may act on open alone), fail with EROFS or
 * EACCES; nothing is unlinked, started or exec'd; signals go only to the
 * fake process, whose pid no real process can have. vFile, vRun and
 * vAttach thus run their parsing and error paths for real, on a machine
 * they cannot change.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "fake_kernel.h"
#include "fuzz_world.h"
#include "gdb/gdb_int.h"
#include "gdb/gdb_osdata.h"

/* ---- the guard ---- */

#define WRITES (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

static int refused_path(const char *path, int flags)
{
	if (flags & WRITES)
		return EROFS;
	if (path && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/sys/", 5)))
		return EACCES;
	return 0;
}

static void *next_fn(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;
	int err = refused_path(path, flags);

	if (err) {
		errno = err;
		return -1;
	}
	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (!real)
		real = next_fn("open");
	return real(path, flags, mode);
}

int unlink(const char *path)
{
	(void)path;
	errno = EROFS;
	return -1;
}

int unlinkat(int dirfd, const char *path, int flags)
{
	(void)dirfd, (void)path, (void)flags;
	errno = EROFS;
	return -1;
}

static bool fake_pid(pid_t pid)
{
	return pid >= PID && pid < PID + NTHREADS;
}

int kill(pid_t pid, int sig)
{
	if (sig != 0 && !fake_pid(pid)) {
		errno = EPERM;
		return -1;
	}
	errno = ESRCH; /* no real process has a pid above PID_MAX_LIMIT */
	return -1;
}

int tgkill(pid_t tgid, pid_t tid, int sig)
{
	return kill(tgid == tid ? tgid : tid, sig);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[4];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_tgkill)
		return tgkill((pid_t)a[0], (pid_t)a[1], (int)a[2]);
	if (nr == SYS_openat2) {
		const struct open_how *how = (const void *)a[2];
		int err = refused_path((const char *)a[1], (int)how->flags);

		if (err) {
			errno = err;
			return -1;
		}
	} else if (nr != SYS_gettid) {
		errno = ENOSYS;
		return -1;
	}
	if (!real)
		real = next_fn("syscall");
	return real(nr, a[0], a[1], a[2], a[3]);
}

pid_t fork(void)
{
	errno = EAGAIN;
	return -1;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	(void)path, (void)argv, (void)envp;
	errno = EPERM;
	return -1;
}

/* ---- the world ---- */

static struct gdb_server srv;
static struct gdb_session session;

/* The fake process is still held, and thread i runs in it: it may stop. */
static bool may_stop(int i)
{
	return tracer->procs == p && kt[i].alive && kt[i].running &&
	       tracer_find_thread(tracer, TID(i));
}

/* The stops our PTRACE_INTERRUPTs asked for, as the kernel soon sends them; how many. */
static int interrupt_stops(void)
{
	int n = 0;

	for (int i = 1; i <= NTHREADS; i++) {
		if (may_stop(i) && kt[i].intr) {
			k_intr(i);
			n++;
		}
	}
	return n;
}

/*
 * Hand the engines their reports, as the event loop does, with the stops
 * the engine asked for meanwhile. The other engine B is a client that
 * lets every thread go as soon as it is told of a stop, so that what runs
 * is the session's to decide.
 */
static void reports(void)
{
	for (int round = 0; round < 4; round++) {
		poll_reports();
		if (tracer->procs == p && B)
			engine_resume(B, &all_run, 1);
		if (!interrupt_stops())
			break;
	}
	poll_reports();
}

/* What the event loop does after a read: flush the replies, hand reports on. */
static void settle(struct gdb_session *s)
{
	gdb_trace_pump(s);
	buf_reset(&s->rsp.out);
	gdb_trace_pump(s);
	reports();
}

struct gdb_session *fw_start(const struct proc_caller *peer)
{
	struct gdb_session *s = &session;

	fake_kernel_quiet = true;
	/*
	 * qXfer:osdata reads a /proc of three processes (init, kthreadd and
	 * this one, as "3") and the host's system tables, all real files
	 * (fuzz/proc/ holds symlinks into /proc): the host's own /proc, a
	 * hundred processes or more, made "info os processes" most of an
	 * input's time, with nothing more to parse than three give.
	 */
	osd_proc_root = FUZZ_PROC_ROOT;
	if (!world_init())
		abort();
	setup();
	memset(&srv, 0, sizeof(srv));
	/* FUZZ_REMOTE_DEBUG=1: the packets and replies on stderr, as --remote-debug */
	srv.remote_debug = getenv("FUZZ_REMOTE_DEBUG") != NULL;
	if (peer)
		gdb_session_init_joined(s, tracer, &srv, "fuse", peer);
	else
		gdb_session_init(s, tracer, &srv);
	/* what engine_attach() would have made for this client */
	A->client = s->client;
	gdb_session_set_engine(s, A);
	/* as after an attach: every thread stopped for the session, which has heard of it */
	engine_interrupt(A);
	reports();
	return s;
}

void fw_input(struct gdb_session *s, const void *data, size_t len)
{
	if (s->closing)
		return;
	gdb_session_input(s, data, len);
	settle(s);
}

void fw_packet(struct gdb_session *s, const void *payload, size_t len)
{
	static char framed[2 * RSP_MAX_PACKET + 8];
	const uint8_t *p = payload;
	size_t n = 0;
	uint8_t sum = 0;

	framed[n++] = '$';
	for (size_t i = 0; i < len && n < sizeof(framed) - 5; i++) {
		if (p[i] == '$' || p[i] == '#' || p[i] == '}' || p[i] == '*') {
			framed[n++] = '}';
			sum += '}';
			framed[n++] = (char)(p[i] ^ 0x20);
			sum += p[i] ^ 0x20;
		} else {
			framed[n++] = (char)p[i];
			sum += p[i];
		}
	}
	n += (size_t)snprintf(framed + n, sizeof(framed) - n, "#%02x", sum);
	fw_input(s, framed, n);
}

void fw_event(const uint8_t *ev, size_t len)
{
	int i = len > 1 ? 1 + ev[1] % NTHREADS : 1;
	uint8_t arg = len > 2 ? ev[2] : 0;

	if (len < 1)
		return;
	if (srv.remote_debug)
		fprintf(stderr, "event %d thread %d arg %#x (%s)\n", ev[0] % 7, i, arg,
			may_stop(i) ? "running" : "not running");
	switch (ev[0] % 7) {
	case 0: /* an int3 anywhere in the text */
		if (may_stop(i))
			k_int3(i, TEXT + arg);
		break;
	case 1:
		if (may_stop(i))
			k_step(i);
		break;
	case 2:
		if (may_stop(i))
			k_signal(i, 1 + arg % (SIGRTMAX - 1));
		break;
	case 3: /* a stop for a PTRACE_INTERRUPT, or the group-stop of a SIGSTOP */
		if (may_stop(i))
			k_status(i, W_STOPCODE(SIGSTOP) | (PTRACE_EVENT_STOP << 16));
		break;
	case 4:
		if (may_stop(i))
			k_watch(i, arg & 0xf ? arg & 0xf : DR6_BS);
		break;
	case 5: /* exits with a code, or dies of a signal */
		if (may_stop(i))
			k_die(i, arg & 0x80 ? 1 + arg % 31 : W_EXITCODE(arg, 0));
		break;
	default: /* a syscall-stop */
		if (may_stop(i))
			k_status(i, W_STOPCODE(SIGTRAP | 0x80));
		break;
	}
	reports();
}

void fw_stop(struct gdb_session *s)
{
	gdb_session_free(s);
	/*
	 * An experiment left running by the session outlives it, as it would
	 * a gdb's disconnect; the world's end is the daemon's: it goes, its
	 * engine with it, or the next input's session (same fake pid) would
	 * take it over with an engine world_exit() freed.
	 */
	gdb_tp_free_all();
	world_exit(); /* detaches B and what else is left */
	memfd = -1;
	tracer = NULL;
	p = NULL;
	A = B = NULL;
	fake_kernel_clean();
}
