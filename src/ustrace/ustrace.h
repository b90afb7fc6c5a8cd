/*
 * ustrace.h: the ustrace command: its options and the run that wires the
 * tracer core (src/tracer/) to a private engine (src/engine/).
 *
 * ust_parse() is pure (unit-tested in tests/unit/ustrace_opts_test.c);
 * ust_run() owns the processes: each -p PID that utraced already holds is
 * joined through the daemon (ustrace_join.c), which runs the tracer core
 * itself and streams the text; any other is traced by a private engine.
 */
#ifndef UTRACED_USTRACE_H
#define UTRACED_USTRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../tracer/trc.h"

#define UST_MAX_PIDS 64

enum ust_action {
	UST_RUN,
	UST_HELP,    /* -h: usage on stdout, exit 0 */
	UST_VERSION, /* -V */
};

struct ust_opts {
	enum ust_action action;
	struct trc_opts trc;
	char **argv; /* PROG ARGS, or NULL with -p */
	pid_t pids[UST_MAX_PIDS];
	size_t npids;
	bool follow;	     /* -f */
	bool split;	     /* -ff with -o: FILE.TID for each task */
	bool seccomp;	     /* --seccomp-bpf */
	const char *outfile; /* -o */
	bool err_no_help;    /* the parse error is an -e one: strace gives no "Try -h" line */
};

/*
 * Parse argv as strace does. 0, or -1 with a message (without the
 * "ustrace: " prefix) in err. argv is kept (o->argv points into it).
 */
int ust_parse(struct ust_opts *o, int argc, char **argv, char *err, size_t errlen);
/* How messages start, as strace's: the name we were run as ("ustrace" until main sets it). */
extern const char *ust_progname;
void ust_usage(FILE *f);

/* Where the lines go (ustrace_out.c): NULL (said on stderr) if -o fails. */
struct ust_out;
struct ust_out *ust_out_open(const struct ust_opts *o);
struct trc_sink ust_out_sink(struct ust_out *uo);
void ust_out_flush_pending(struct ust_out *uo, const char *note);
/* The -c table, then closes every output. */
void ust_out_close(struct ust_out *uo);

/* Trace as o says; returns the exit status ustrace should end with. */
int ust_run(struct ust_opts *o);

/*
 * Joining a process utraced holds, through RUNDIR/<pid>.sock (ustrace_join.c).
 * What the daemon streams goes to out (trace records, src/tracer/trc_stream.c)
 * and msg (stderr lines).
 */
struct ust_join;
struct trc_wire;
struct ust_join_cb {
	void *ctx;
	void (*out)(void *ctx, const char *s, size_t n);
	void (*msg)(void *ctx, const char *s, size_t n);
};

/*
 * 1: joined, *j set; 0: no daemon holds pid (no socket, or it would not
 * have us): trace it ourselves; -1: the daemon holds it but would not
 * trace it, why in err.
 */
int ust_join_open(struct ust_join **j, pid_t pid, const struct trc_wire *w,
		  const struct ust_join_cb *cb, char *err, size_t errlen);
int ust_join_fd(const struct ust_join *j);
/* Hand on what arrived; false once the stream ended (process gone, daemon gone). */
bool ust_join_read(struct ust_join *j, const struct ust_join_cb *cb);
bool ust_join_ended(const struct ust_join *j);
/* How the process ended (exit code, or 0x100 | signal); -1 if not seen. */
int ust_join_status(const struct ust_join *j);
/* ^C: the daemon ends the open line (" <detached ...>") and its engine leaves. */
void ust_join_leave(struct ust_join *j, const struct ust_join_cb *cb);
void ust_join_free(struct ust_join *j);

#endif
