/*
 * trc: the syscall tracer's decode-and-format core, strace's output format.
 *
 * This is everything of ustrace that does not touch a process: syscall
 * tables, argument decoders, the line discipline (`<unfinished ...>`,
 * `<... read resumed>`, `[pid N]`), filters and the -c summary. Whoever
 * owns the ptrace side (ustrace's own engine today, the utraced daemon's
 * streaming engine later) feeds it events and a reader for the tracee's
 * memory; it writes finished text through a callback. Nothing here
 * includes ptrace or engine headers, so all of it is unit-tested against
 * a fake process (tests/unit/trc_*_test.c).
 *
 * Not thread-safe: one struct trc is driven from one thread.
 */
#ifndef UTRACED_TRC_H
#define UTRACED_TRC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Syscall ABI of the thread: x86-64 or i386 numbers and layouts. */
enum trc_pers {
	TRC_PERS_64,
	TRC_PERS_32,
};
#define TRC_NPERS 2

/*
 * How decoders see the tracee. read() copies len bytes at addr and returns
 * how many it copied (short or -1 at an unmapped page); fd_path() (for -y,
 * may be NULL) gives the path behind an fd (the cwd for AT_FDCWD), 0 or -errno. Only read() is
 * required.
 */
struct trc_reader {
	void *ctx;
	ssize_t (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*fd_path)(void *ctx, int fd, char *out, size_t outlen);
	/* The thread's stack pointer at syscall entry (rt_sigreturn's frame); may be NULL. */
	uint64_t (*sp)(void *ctx);
};

/* A set of small numbers (syscalls of one personality, signals). */
#define TRC_SET_MAX 1024
struct trc_set {
	uint64_t bits[TRC_SET_MAX / 64];
};

static inline bool trc_set_has(const struct trc_set *s, unsigned n)
{
	return n < TRC_SET_MAX && (s->bits[n / 64] >> (n % 64)) & 1;
}

static inline void trc_set_put(struct trc_set *s, unsigned n, bool on)
{
	if (n >= TRC_SET_MAX)
		return;
	if (on)
		s->bits[n / 64] |= 1ull << (n % 64);
	else
		s->bits[n / 64] &= ~(1ull << (n % 64));
}

/*
 * A set of fds: each below TRC_SET_MAX; above, all at once ("all", "!3")
 * and up to TRC_FDSET_BIG named ones (each plus 1, 0 for none), with high
 * saying whether those are in or out.
 */
#define TRC_FDSET_BIG 4
#define TRC_FD_MAX    (1 << 20) /* the kernel's largest nr_open */
struct trc_fdset {
	struct trc_set low;
	bool high;
	uint32_t big[TRC_FDSET_BIG];
};

static inline bool trc_fdset_has(const struct trc_fdset *s, int fd)
{
	if (fd < 0)
		return false;
	if (fd < TRC_SET_MAX)
		return trc_set_has(&s->low, (unsigned)fd);
	for (int i = 0; i < TRC_FDSET_BIG; i++)
		if (s->big[i] == (uint32_t)fd + 1)
			return !s->high;
	return s->high;
}

enum trc_pfx {
	TRC_PFX_AUTO,  /* "[pid  N] " once more than one thread is known (output on stderr) */
	TRC_PFX_PLAIN, /* "N     " on every line (-o FILE with -f, or several -p) */
};

enum trc_count {
	TRC_COUNT_OFF,
	TRC_COUNT_ONLY, /* -c: the summary only */
	TRC_COUNT_TOO,	/* -C: lines and summary */
};

#define TRC_PATHS_LEN 512 /* -P: room for every path, NULs included */

/* strace's options, as far as the output is concerned. */
struct trc_opts {
	unsigned strsize;     /* -s: string bytes shown (32) */
	unsigned acolumn;     /* column of "= ret" (40) */
	int tstamp;	      /* 0, 1 -t, 2 -tt, 3 -ttt */
	bool show_time;	      /* -T */
	bool decode_fds;      /* -y */
	int xstrings;	      /* 0; 1 -x: a string with a non-ASCII byte in hex; 2 -xx: all */
	bool relative;	      /* -r: time since the previous line's */
	bool only_ok;	      /* -z: successful syscalls only */
	bool only_fail;	      /* -Z: failed syscalls only */
	unsigned quiet;	      /* -q, -e quiet=: TRC_QUIET_* bits */
	enum trc_count count; /* -c / -C */
	bool count_wall;      /* -w: -c times are entry-to-exit latency, not system CPU time */
	enum trc_pfx pfx;
	/* -P: NUL-terminated paths one after the other, "" after the last; "": no -P */
	char paths[TRC_PATHS_LEN];
	struct trc_set trace[TRC_NPERS]; /* syscalls shown, by number */
	struct trc_set signals;		 /* signals shown (-e signal=) */
	/* -v, -e abbrev=: syscalls whose structures are printed whole */
	struct trc_set noabbrev[TRC_NPERS];
	/* -e verbose=: syscalls whose structures are printed as addresses */
	struct trc_set noverbose[TRC_NPERS];
	/* -e raw=: syscalls whose arguments are printed as raw hex */
	struct trc_set raw[TRC_NPERS];
	struct trc_fdset read_fds;  /* -e read=: fds whose data read is dumped */
	struct trc_fdset write_fds; /* -e write=: fds whose data written is dumped */
};

/* -e quiet= (-q: attach and personality; -qq: and exit; -qqq: all) */
#define TRC_QUIET_ATTACH	0x01 /* "Process N attached", "... detached" */
#define TRC_QUIET_EXIT		0x02 /* "+++ exited with N +++" */
#define TRC_QUIET_PERS		0x04 /* "[ Process PID=N runs in 32 bit mode. ]" */
#define TRC_QUIET_THREAD_EXECVE 0x08 /* "+++ superseded by execve in pid N +++" */
#define TRC_QUIET_SUPERSEDED	0x10 /* "--- SIGNAL ... superseded ---" */
#define TRC_QUIET_PATH		0x20 /* -P's "Requested path ... resolved into ..." */
#define TRC_QUIET_ALL		0x3f

/* Defaults: strace with no options (everything traced, -s 32). */
void trc_opts_init(struct trc_opts *o);

/*
 * Who an event is about. ts: when it happened (for -t, -T and -c -w);
 * stime_ns: the system CPU time its process had used by then (for -c,
 * as strace takes it from wait4's rusage; 0 when unknown).
 */
struct trc_who {
	pid_t tid;
	enum trc_pers pers;
	const struct trc_reader *rd;
	struct timespec ts;
	int64_t stime_ns;
	bool injected; /* at a syscall's exit: its result was ours (-e inject=): "(INJECTED)" */
};

typedef void (*trc_write_fn)(void *ctx, const char *s, size_t n);

/*
 * What a core's output is made of: lines started, resumed, written,
 * padded to the "= " column and ended, -c counts and the tasks known (for
 * "[pid N]"). A struct trc_out (trc_out.c) turns it into strace's text;
 * trc_stream.c carries it across a byte stream (the daemon's trace) into
 * another process's trc_out.
 */
struct trc_sink {
	void *ctx;
	/* a new line of tid (the open one, another's, ends " <unfinished ...>") */
	void (*start)(void *ctx, pid_t tid, const struct timespec *ts);
	/* the exit half of tid's nr: "<... name resumed>" if its line was closed */
	void (*resume)(void *ctx, pid_t tid, const struct timespec *ts, enum trc_pers p, long nr);
	void (*text)(void *ctx, const char *s, size_t n);
	void (*tab)(void *ctx); /* spaces up to the "= " column */
	void (*end)(void *ctx); /* "\n": the line is done */
	void (*count)(void *ctx, enum trc_pers p, long nr, bool error, int64_t ns);
	void (*task)(void *ctx, pid_t tid, bool alive);
	/*
	 * Thread old exec'd and now goes by tid (the leader's, which is gone):
	 * its open line, if any, ends " <pid changed to tid ...>"; what was
	 * old's (-ff: its file) is tid's from now on. NULL: nothing to do.
	 */
	void (*retid)(void *ctx, pid_t old, pid_t tid);
};

/* The text of one or more cores, written through write(ctx, ...). Copies o. */
struct trc_out;
struct trc_out *trc_out_new(const struct trc_opts *o, trc_write_fn write, void *ctx);
void trc_out_free(struct trc_out *out);
/* -r: the time the last line started, the next line's origin. */
struct trc_rel {
	struct timespec prev;
	bool have;
};
/* Several outs on one -r clock, as strace's -ff files: the time since any line. */
void trc_out_share_rel(struct trc_out *out, struct trc_rel *rel);
struct trc_sink trc_out_sink(struct trc_out *out);
/* Ends an open partial line with note (" <detached ...>" when leaving). */
void trc_out_flush_pending(struct trc_out *out, const char *note);
/* The -c/-C table of every core's calls. */
void trc_out_summary(struct trc_out *out);

/*
 * -ff: a trc_out per task, for outputs of its own. open(ctx, tid, again)
 * gives the write context of tid's output (again: it was opened before,
 * append) or NULL (its lines are dropped); close ends one.
 */
struct trc_split_io {
	void *ctx;
	void *(*open)(void *ctx, pid_t tid, bool again);
	trc_write_fn write;
	void (*close)(void *ctx, void *wctx);
};
struct trc_split;
struct trc_split *trc_split_new(const struct trc_opts *o, const struct trc_split_io *io);
struct trc_sink trc_split_sink(struct trc_split *s);
void trc_split_flush_pending(struct trc_split *s, const char *note);
/* Closes every output still open. */
void trc_split_free(struct trc_split *s);

struct trc;

/* A tracer writing through write(ctx, ...), with a trc_out of its own. Copies o. Never fails. */
struct trc *trc_new(const struct trc_opts *o, trc_write_fn write, void *ctx);
/* A tracer whose output goes to sink (a shared trc_out, a stream). */
struct trc *trc_new_sink(const struct trc_opts *o, const struct trc_sink *sink);
void trc_free(struct trc *t);

/*
 * Events, in the order the kernel reports them for each thread. The
 * reader is only used during the call. Entry prints "name(" and what is
 * known before the call; exit finishes the line (after "<... name
 * resumed>" when another line came in between).
 */
void trc_syscall_entry(struct trc *t, const struct trc_who *w, long nr, const uint64_t args[6]);
void trc_syscall_exit(struct trc *t, const struct trc_who *w, int64_t ret);
/* A signal about to be delivered: "--- SIGUSR1 {si_signo=...} ---". */
void trc_signal(struct trc *t, const struct trc_who *w, const siginfo_t *si);
/* w->tid is on its way out (PTRACE_EVENT_EXIT): its call in progress ends "= ?". */
void trc_exiting(struct trc *t, const struct trc_who *w);
/*
 * Thread old exec'd and is w->tid now, the leader it replaced gone:
 * " <pid changed to N ...>", "+++ superseded by execve in pid OLD +++",
 * and old's execve returns as w->tid.
 */
void trc_retid(struct trc *t, const struct trc_who *w, pid_t old);
/* A group-stop (job control): "--- stopped by SIGSTOP ---". */
void trc_stopped(struct trc *t, const struct trc_who *w, int sig);
/* The thread exited (status) or was killed (sig, core dumped). */
void trc_exited(struct trc *t, const struct trc_who *w, int status);
void trc_killed(struct trc *t, const struct trc_who *w, int sig, bool core);
/* A thread is gone without a status of its own (left with its process). */
void trc_forget(struct trc *t, pid_t tid);
/* A new thread or child now traced (counts for the "[pid N]" prefix). */
void trc_thread_new(struct trc *t, pid_t tid);

/* trc_new's tracer: trc_out_flush_pending and trc_out_summary of its own trc_out. */
void trc_flush_pending(struct trc *t, const char *note);
void trc_summary(struct trc *t);

/* Syscall tables. */
const char *trc_syscall_name(enum trc_pers p, long nr); /* NULL: unknown number */
long trc_syscall_nr(enum trc_pers p, const char *name); /* -1: no such syscall */
long trc_syscall_max(enum trc_pers p);			/* highest number + 1 */
const char *trc_signal_name(int sig);			/* "SIGUSR1", "SIGRT_3"; NULL: bad */
int trc_signal_nr(const char *name);			/* "USR1", "SIGUSR1", "10"; -1 */
const char *trc_errno_name(int err);			/* "ENOENT"; NULL: unknown */

/*
 * -e trace=SPEC and -e signal=SPEC, as strace parses them: a comma list of
 * names, classes (%file %process %network (%net) %memory %signal %desc
 * %ipc %stat %lstat %fstat %%stat %creds %clock %pure), numbers, "all" and
 * "none", with a leading "!" negating the whole list. Applied to o->trace
 * (both personalities) or o->signals. 0, or -1 with a message in err.
 */
int trc_parse_trace(struct trc_opts *o, const char *spec, char *err, size_t errlen);
int trc_parse_signals(struct trc_opts *o, const char *spec, char *err, size_t errlen);
/*
 * A syscall set in trc_parse_trace's syntax, into set[] (both
 * personalities); invert: the complement (for abbrev= and verbose=, kept
 * as the syscalls they leave out). 0, or -1 with a message in err.
 */
int trc_parse_set(struct trc_set set[TRC_NPERS], bool invert, const char *spec, char *err,
		  size_t errlen);
/* -e read=FDS, -e write=FDS: numbers, all, none, a leading ! for the complement. */
int trc_parse_fds(struct trc_fdset *set, const char *spec, char *err, size_t errlen);
/* -e quiet=SPEC: attach, exit, personality, thread-execve, superseded, path-resolution, all, none.
 */
int trc_parse_quiet(struct trc_opts *o, const char *spec, char *err, size_t errlen);

/* Whether the syscall's structures are printed whole (-v), as addresses (-e verbose=), raw. */
static inline bool trc_opt_in(const struct trc_set set[TRC_NPERS], enum trc_pers p, long nr)
{
	return nr >= 0 && trc_set_has(&set[p], (unsigned)nr);
}

/*
 * -P PATH: only syscalls with PATH as a path argument, or an fd argument
 * open on it, are shown. A symbolic link adds its target too (resolved
 * here, as strace does). 0, or -1 with a message in err.
 */
int trc_add_path(struct trc_opts *o, const char *path, char *err, size_t errlen);
/* Whether path is one of -P's. */
bool trc_path_wanted(const struct trc_opts *o, const char *path);
/* The bytes o->paths holds, each path's NUL included, the final "" not. */
size_t trc_paths_used(const struct trc_opts *o);

/* Numbers set in o->trace for pers, into nrs (at most max); returns the count. */
size_t trc_traced_nrs(const struct trc_opts *o, enum trc_pers pers, long *nrs, size_t max);
/* True when o->trace holds every syscall of pers (no filter to push down). */
bool trc_traces_all(const struct trc_opts *o, enum trc_pers pers);

#endif
