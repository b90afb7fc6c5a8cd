/*
 * ustrace.h: the ustrace command: its options and the run that wires the
 * tracer core (src/tracer/) to a private engine (src/engine/).
 *
 * ust_parse() is pure (unit-tested in tests/unit/ustrace_opts_test.c);
 * ust_run() owns the processes. The daemon-side variant (joining a
 * process utraced already holds, through its rendezvous socket) would
 * replace ust_run() only: the options and the tracer core stay.
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
	bool seccomp;	     /* --seccomp-bpf */
	int quiet;	     /* -q 1, -qq 2 */
	const char *outfile; /* -o */
};

/*
 * Parse argv as strace does. 0, or -1 with a message (without the
 * "ustrace: " prefix) in err. argv is kept (o->argv points into it).
 */
int ust_parse(struct ust_opts *o, int argc, char **argv, char *err, size_t errlen);
void ust_usage(FILE *f);

/* Trace as o says; returns the exit status ustrace should end with. */
int ust_run(struct ust_opts *o);

#endif
