/*
 * ustrace.h: the ustrace command: its options and the run that wires the
 * strace core (src/strace/) to a private engine (src/engine/).
 *
 * ust_parse() is pure (unit-tested in tests/unit/ustrace_opts_test.c);
 * ust_run() owns the processes: each -p PID that utraced already holds is
 * joined through the daemon (ustrace_join.c), which runs the strace core
 * itself and streams the text; any other is traced by a private engine.
 */
#ifndef UTRACED_USTRACE_H
#define UTRACED_USTRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../strace/trc.h"

#define UST_MAX_PIDS 64

enum ust_action {
	UST_RUN,
	UST_HELP,    /* -h: usage on stdout, exit 0 */
	UST_VERSION, /* -V */
};

/* -e inject= / -e fault= (ustrace_inject.c) */
#define UST_INJECT_MAX	   32
#define UST_INJECT_THREADS 64
struct ust_inject_rule {
	int error; /* errno to return, 0: none */
	bool has_retval;
	int64_t retval;
	int signal;		    /* to give at the exit, 0: none */
	unsigned first, last, step; /* when=: calls first..last, every step-th (0: first only) */
};
struct ust_inject {
	uint8_t rule[TRC_NPERS][TRC_SET_MAX]; /* rule index + 1 per syscall, 0: none */
	struct ust_inject_rule rules[UST_INJECT_MAX];
	unsigned nrules;
};
/* What a run keeps: calls counted per syscall, a chosen call per thread until its exit. */
struct ust_inject_pending {
	pid_t tid; /* 0: free */
	const struct ust_inject_rule *rule;
};
struct ust_inject_state {
	uint16_t count[TRC_NPERS][TRC_SET_MAX];
	struct ust_inject_pending pending[UST_INJECT_THREADS];
};

struct ust_opts {
	enum ust_action action;
	struct trc_opts trc;
	char **argv; /* PROG ARGS, or NULL with -p */
	pid_t pids[UST_MAX_PIDS];
	size_t npids;
	bool follow;		  /* -f */
	bool split;		  /* -ff with -o: FILE.TID for each task */
	bool seccomp;		  /* --seccomp-bpf */
	const char *outfile;	  /* -o */
	bool err_no_help;	  /* the parse error is an -e one: strace gives no "Try -h" line */
	struct ust_inject inject; /* -e inject=, -e fault= */
};

/*
 * Parse argv as strace does. 0, or -1 with a message (without the
 * "ustrace: " prefix) in err. argv is kept (o->argv points into it).
 */
int ust_parse(struct ust_opts *o, int argc, char **argv, char *err, size_t errlen);
/* How messages start, as strace's: the name we were run as ("ustrace" until main sets it). */
extern const char *ust_progname;
void ust_usage(FILE *f);

/* -e inject=SPEC (fault: -e fault=SPEC) added to inj; 0, or -1 with a message. */
int ust_inject_parse(struct ust_inject *inj, const char *spec, bool fault, char *err,
		     size_t errlen);
struct engine;
/* At a traced syscall's entry of tid: count it, and if a rule chose it, tamper with it. */
void ust_inject_entry(const struct ust_inject *inj, struct ust_inject_state *st, struct engine *e,
		      pid_t tid, int pers, long nr);
/* At its exit: true when *ret is now the injected result ("(INJECTED)"). */
bool ust_inject_exit(struct ust_inject_state *st, struct engine *e, pid_t tid, int64_t *ret);

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
 * What the daemon streams goes to out (trace records, src/strace/trc_stream.c)
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
 * have us): trace it ourselves; -errno: the daemon holds it but would not
 * trace it (its Exx), why in err too.
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
