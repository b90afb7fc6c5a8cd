/*
 * ustrace_main.c: argv -> options -> ust_run(); nothing else.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ustrace.h"

/* The Makefile passes the VERSION file's text. */
#ifndef UTRACED_VERSION
#define UTRACED_VERSION "unknown"
#endif

int main(int argc, char **argv)
{
	struct ust_opts o;
	char err[256];

	if (argv[0] && argv[0][0])
		ust_progname = argv[0];
	if (ust_parse(&o, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ust_progname, err);
		if (!o.err_no_help)
			fprintf(stderr, "Try '%s -h' for more information.\n", ust_progname);
		return 1;
	}
	if (o.action == UST_HELP) {
		ust_usage(stdout);
		return 0;
	}
	if (o.action == UST_VERSION) {
		puts("ustrace -- utraced's strace-compatible syscall tracer, "
		     "version " UTRACED_VERSION);
		return 0;
	}
	return ust_run(&o);
}
