/*
 * main.c: the command line, gdbserver's: argv -> ep_config -> server.
 *
 *   utraced [OPTIONS] COMM PROG [ARGS...]
 *   utraced [OPTIONS] --attach COMM PID   (or COMM --attach PID, as gdbserver)
 *   utraced [OPTIONS] --multi COMM
 *   utraced [OPTIONS] --mount DIR [--multi COMM]
 */
#include "endpoint/ep.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The Makefile passes the VERSION file's text. */
#ifndef UTRACED_VERSION
#define UTRACED_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f, "Usage:\tutraced [OPTIONS] COMM PROG [ARGS ...]\n"
		   "\tutraced [OPTIONS] --attach COMM PID\n"
		   "\tutraced [OPTIONS] --multi COMM\n"
		   "\tutraced [OPTIONS] --mount DIR [--multi COMM]\n"
		   "\n"
		   "COMM may be [HOST]:PORT (\":PORT\" listens on loopback only; use\n"
		   "0.0.0.0:PORT or [::]:PORT for every interface), unix:PATH for a unix\n"
		   "socket, or '-' / 'stdio' to talk RSP on standard input and output.\n"
		   "\n"
		   "Options:\n"
		   "  --attach          Attach to the running process PID.\n"
		   "  --multi           Serve extended-remote; stay up without a process.\n"
		   "  --once            Exit after the first client leaves.\n"
		   "  --mount DIR       Serve DIR/PID/gdb (`target remote DIR/PID/gdb`: a link\n"
		   "                    to a pty of the caller's) and DIR/PID/engines for every\n"
		   "                    process the caller may debug.\n"
		   "  --wrapper WRAPPER --\n"
		   "                    Run the program through WRAPPER (e.g. env VAR=x).\n"
		   "  --startup-with-shell, --no-startup-with-shell\n"
		   "                    Start the program through $SHELL (default) or directly.\n"
		   "  --disable-packet=vCont,T,Tthread,qC,qfThreadInfo,threads\n"
		   "                    Act as if these packets were unknown (for testing gdb).\n"
		   "  --step-over=out-of-line|in-place\n"
		   "                    How a thread goes on past a breakpoint nobody reports\n"
		   "                    (a false condition): out of line (default), or in place\n"
		   "                    with every other thread held.\n"
		   "  --agent=on|off    Evaluate breakpoint conditions inside the program, with\n"
		   "                    no stop when they are false (on, the default), or in\n"
		   "                    utraced at each hit (off).\n"
		   "  --debug           Print debugging information on stderr.\n"
		   "  --remote-debug    Log every packet on stderr.\n"
		   "  --help            Print this message.\n"
		   "  --version         Print the version.\n");
}

enum {
	OPT_ATTACH = 256,
	OPT_MULTI,
	OPT_ONCE,
	OPT_DEBUG,
	OPT_REMOTE_DEBUG,
	OPT_HELP,
	OPT_VERSION,
	OPT_WRAPPER,
	OPT_SHELL,
	OPT_NO_SHELL,
	OPT_DISABLE_PACKET,
	OPT_MOUNT,
	OPT_STEP_OVER,
	OPT_AGENT,
};

static const struct option options[] = {
	{"attach", no_argument, NULL, OPT_ATTACH},
	{"multi", no_argument, NULL, OPT_MULTI},
	{"once", no_argument, NULL, OPT_ONCE},
	{"debug", no_argument, NULL, OPT_DEBUG},
	{"remote-debug", no_argument, NULL, OPT_REMOTE_DEBUG},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"wrapper", no_argument, NULL, OPT_WRAPPER},
	{"startup-with-shell", no_argument, NULL, OPT_SHELL},
	{"no-startup-with-shell", no_argument, NULL, OPT_NO_SHELL},
	{"disable-packet", required_argument, NULL, OPT_DISABLE_PACKET},
	{"mount", required_argument, NULL, OPT_MOUNT},
	{"step-over", required_argument, NULL, OPT_STEP_OVER},
	{"agent", required_argument, NULL, OPT_AGENT},
	{NULL, 0, NULL, 0},
};

static const struct {
	const char *name;
	unsigned bits;
} disable_names[] = {
	{"vCont", GDB_DISABLE_VCONT},
	{"T", GDB_DISABLE_T},
	{"Tthread", GDB_DISABLE_TTHREAD},
	{"qC", GDB_DISABLE_QC},
	{"qfThreadInfo", GDB_DISABLE_QFTHREADINFO},
	{"threads",
	 GDB_DISABLE_VCONT | GDB_DISABLE_TTHREAD | GDB_DISABLE_QC | GDB_DISABLE_QFTHREADINFO},
};

/* "--disable-packet=A,B": an unknown name is an error, as in gdbserver. */
static int parse_disable(char *list, unsigned *out)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		size_t i;

		for (i = 0; i < sizeof(disable_names) / sizeof(disable_names[0]); i++)
			if (!strcmp(tok, disable_names[i].name))
				break;
		if (i == sizeof(disable_names) / sizeof(disable_names[0])) {
			fprintf(stderr, "Don't know how to disable \"%s\".\n", tok);
			return -1;
		}
		*out |= disable_names[i].bits;
	}
	return 0;
}

/* "--wrapper ARGS... --": the wrapper's words end at "--". */
static int take_wrapper(int argc, char **argv, struct ep_config *cfg)
{
	int i;

	for (i = optind; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i == argc || i == optind) {
		fprintf(stderr, "utraced: --wrapper needs arguments ending with --\n");
		return -1;
	}
	cfg->srv.wrapper = &argv[optind];
	argv[i] = NULL; /* terminates the wrapper's argv */
	optind = i + 1;
	return 0;
}

/*
 * A bare program name that is a file in the current directory means that
 * file, as with gdbserver (a shell would search $PATH only).
 */
static char *program_path(char *name)
{
	struct stat st;
	char *abs;

	if (strchr(name, '/') || stat(name, &st) < 0 || !S_ISREG(st.st_mode))
		return name;
	abs = realpath(name, NULL);
	return abs ? abs : name;
}

static int parse_pid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v > 0 && v < 0x7fffffff ? (int)v : 0;
}

int main(int argc, char **argv)
{
	struct ep_config cfg = {.srv.startup_with_shell = true};
	bool attach = false;
	int opt;

	/* '+': stop at the first non-option, so PROG's own options stay PROG's */
	while ((opt = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		switch (opt) {
		case OPT_ATTACH:
			attach = true;
			break;
		case OPT_MULTI:
			cfg.srv.multi = true;
			break;
		case OPT_ONCE:
			cfg.srv.once = true;
			break;
		case OPT_DEBUG:
			cfg.srv.debug = true;
			break;
		case OPT_WRAPPER:
			if (take_wrapper(argc, argv, &cfg) < 0)
				return 1;
			break;
		case OPT_SHELL:
		case OPT_NO_SHELL:
			cfg.srv.startup_with_shell = opt == OPT_SHELL;
			break;
		case OPT_DISABLE_PACKET:
			if (parse_disable(optarg, &cfg.srv.disabled) < 0)
				return 1;
			break;
		case OPT_MOUNT:
			cfg.mount = optarg;
			break;
		case OPT_STEP_OVER:
			if (strcmp(optarg, "out-of-line") && strcmp(optarg, "in-place")) {
				fprintf(stderr,
					"utraced: --step-over is out-of-line or in-place\n");
				return 2;
			}
			cfg.in_place = !strcmp(optarg, "in-place");
			break;
		case OPT_AGENT:
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "utraced: --agent is on or off\n");
				return 2;
			}
			cfg.no_agent = !strcmp(optarg, "off");
			break;
		case OPT_REMOTE_DEBUG:
			cfg.srv.remote_debug = true;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("utraced %s\n", UTRACED_VERSION);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind >= argc && cfg.mount && !attach && !cfg.srv.multi)
		return ep_server_run(&cfg); /* --mount alone: a daemon for every process */
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	cfg.comm = argv[optind++];
	cfg.srv.stdio = !strcmp(cfg.comm, "-") || !strcmp(cfg.comm, "stdio");
	/* gdbserver still takes the old spelling "COMM --attach PID" (GDB's testsuite uses it) */
	if (!attach && optind < argc - 1 && !strcmp(argv[optind], "--attach")) {
		attach = true;
		optind++;
	}
	if (attach) {
		if (optind != argc - 1 || !(cfg.attach_pid = parse_pid(argv[optind]))) {
			fprintf(stderr, "utraced: --attach needs one PID\n");
			return 1;
		}
	} else if (optind < argc) {
		argv[optind] = program_path(argv[optind]);
		cfg.argv = &argv[optind];
		cfg.srv.program = argv[optind];
	} else if (!cfg.srv.multi) {
		usage(stderr);
		return 1;
	}
	return ep_server_run(&cfg);
}
