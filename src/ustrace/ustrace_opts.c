/*
 * ustrace_opts.c: ustrace's command line, spelled as strace's.
 *
 * Pure: fills a struct ust_opts and never exits, so that every option is
 * unit-tested. Options strace has and ustrace does not implement are
 * refused with a message rather than silently ignored.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustrace.h"

const char *ust_progname = "ustrace";

enum {
	OPT_SECCOMP = 0x100,
	OPT_TRACE,
	OPT_SIGNAL,
	OPT_HEX,
	OPT_RELATIVE,
	OPT_SPLIT,
	OPT_NOABBREV,
	OPT_QUIET_LONG,
	OPT_READ,
	OPT_WRITE,
};

static const struct option longopts[] = {
	{"seccomp-bpf", no_argument, NULL, OPT_SECCOMP},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"summary-only", no_argument, NULL, 'c'},
	{"summary", no_argument, NULL, 'C'},
	{"summary-wall-clock", no_argument, NULL, 'w'},
	{"follow-forks", no_argument, NULL, 'f'},
	{"output-separately", no_argument, NULL, OPT_SPLIT},
	{"trace-path", required_argument, NULL, 'P'},
	{"output", required_argument, NULL, 'o'},
	{"attach", required_argument, NULL, 'p'},
	{"string-limit", required_argument, NULL, 's'},
	{"columns", required_argument, NULL, 'a'},
	{"quiet", optional_argument, NULL, OPT_QUIET_LONG},
	{"silent", optional_argument, NULL, OPT_QUIET_LONG},
	{"no-abbrev", no_argument, NULL, OPT_NOABBREV},
	{"read", required_argument, NULL, OPT_READ},
	{"write", required_argument, NULL, OPT_WRITE},
	{"interruptible", required_argument, NULL, 'I'},
	{"successful-only", no_argument, NULL, 'z'},
	{"failed-only", no_argument, NULL, 'Z'},
	{"decode-fds", optional_argument, NULL, 'y'},
	{"syscall-times", optional_argument, NULL, 'T'},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"signal", required_argument, NULL, OPT_SIGNAL},
	{"strings-in-hex", optional_argument, NULL, OPT_HEX},
	{"relative-timestamps", optional_argument, NULL, OPT_RELATIVE},
	{NULL, 0, NULL, 0},
};

void ust_usage(FILE *f)
{
	fputs("Usage: ustrace [-CcfhqrTtVvwxyZz] [-a COLUMN] [-e EXPR]... [-I N] [-o FILE] [-P "
	      "PATH]...\n"
	      "               [-s STRSIZE]\n"
	      "               { -p PID[,PID...] | PROG [ARGS] }\n"
	      "\n"
	      "Trace system calls and signals, with strace's options and output.\n"
	      "\n"
	      "  -e trace=SET    syscalls to show: names, %file %process %network %memory\n"
	      "                  %signal %desc %ipc ..., all, none; !SET for all but SET\n"
	      "  -e signal=SET   signals to show\n"
	      "  -e abbrev=SET, -e verbose=SET, -e raw=SET   structures whole / decoded / raw hex\n"
	      "  -e read=FDS, -e write=FDS   hex dumps of the data read from / written to FDS\n"
	      "  -e quiet=LIST   attach, exit, personality, thread-execve, superseded, ...\n"
	      "  -e status=LIST  successful, failed\n"
	      "  -e inject=SET:error=E|retval=N|signal=S[:when=FIRST[..LAST][+STEP]]\n"
	      "  -e fault=SET[:error=E][:when=...]   tamper with syscalls (ENOSYS by default)\n"
	      "  -v              structures whole (no abbreviation)\n"
	      "  -I N            interruptibility (accepted; ustrace leaves at ^C after "
	      "detaching)\n"
	      "  -e NAME         as -e trace=NAME\n"
	      "  -f              follow threads (with [pid N] prefixes)\n"
	      "  -ff             ... with -o FILE: each task's lines in FILE.TID\n"
	      "  -o FILE         write the trace to FILE instead of stderr\n"
	      "  -p PID[,PID]    attach to running processes (^C detaches, they run on);\n"
	      "                  with PROG too, both are traced\n"
	      "  -P PATH         only syscalls that name PATH, or an fd open on it\n"
	      "  -s N            show at most N bytes of strings (32)\n"
	      "  -a COLUMN       align return values at COLUMN (40)\n"
	      "  -t, -tt, -ttt   time of day, with microseconds, as seconds since the epoch\n"
	      "  -r              time since the previous line (after -t's time: \"(+ ...)\")\n"
	      "  -T              time spent in each syscall\n"
	      "  -c, -C          summary table only, or with the trace: system CPU time\n"
	      "  -w              ... with -c/-C: wall-clock time from entry to exit instead\n"
	      "  -z, -Z          successful syscalls only, failed ones only\n"
	      "  -x, -xx         strings with non-ASCII bytes in hex; all strings in hex\n"
	      "  -y              show the paths of file descriptors\n"
	      "  -q, -qq         no attach/detach messages; no exit status lines either\n"
	      "  --seccomp-bpf   with -f: a launched program stops only at traced syscalls\n"
	      "  -h, -V          this help, the version\n",
	      f);
}

static int parse_pids(struct ust_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p || pid <= 0 || (*end && *end != ',' && *end != ' ')) {
			snprintf(err, errlen, "Invalid process id: '%s'", arg);
			return -1;
		}
		if (o->npids == UST_MAX_PIDS) {
			snprintf(err, errlen, "too many -p processes (at most %d)", UST_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)pid;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_uint(const char *arg, unsigned *out, char opt, char *err, size_t errlen)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 0 || v > 1 << 20) {
		snprintf(err, errlen, "invalid -%c argument: '%s'", opt, arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* -e status=SET: which results are shown (-z successful, -Z failed). */
static int parse_status(struct ust_opts *o, const char *spec, char *err, size_t errlen)
{
	bool neg = *spec == '!', ok = false, fail = false;
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec + neg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "successful"))
			ok = true;
		else if (!strcmp(tok, "failed"))
			fail = true;
		else if (!strcmp(tok, "all"))
			ok = fail = true;
		else if (strcmp(tok, "none")) {
			snprintf(err, errlen,
				 "unsupported status '%s' (ustrace has successful, failed)", tok);
			return -1;
		}
	}
	if (neg) {
		ok = !ok;
		fail = !fail;
	}
	o->trc.only_ok = ok && !fail;
	o->trc.only_fail = fail && !ok;
	return 0;
}

static bool key_is(const char *e, size_t klen, const char *key)
{
	return strlen(key) == klen && !strncmp(e, key, klen);
}

/* -e QUALIFIER=SET, or -e SET (trace). */
static int parse_expr(struct ust_opts *o, const char *e, char *err, size_t errlen)
{
	const char *eq = strchr(e, '=');
	size_t klen = eq ? (size_t)(eq - e) : 0;

	if (!eq)
		return trc_parse_trace(&o->trc, e, err, errlen);
	if (key_is(e, klen, "trace") || key_is(e, klen, "t"))
		return trc_parse_trace(&o->trc, eq + 1, err, errlen);
	if (key_is(e, klen, "signal") || key_is(e, klen, "signals") || key_is(e, klen, "s"))
		return trc_parse_signals(&o->trc, eq + 1, err, errlen);
	if (key_is(e, klen, "abbrev") || key_is(e, klen, "a"))
		return trc_parse_set(o->trc.noabbrev, true, eq + 1, err, errlen);
	if (key_is(e, klen, "verbose") || key_is(e, klen, "v"))
		return trc_parse_set(o->trc.noverbose, true, eq + 1, err, errlen);
	if (key_is(e, klen, "raw") || key_is(e, klen, "x"))
		return trc_parse_set(o->trc.raw, false, eq + 1, err, errlen);
	if (key_is(e, klen, "quiet") || key_is(e, klen, "silent") || key_is(e, klen, "silence") ||
	    key_is(e, klen, "q"))
		return trc_parse_quiet(&o->trc, eq + 1, err, errlen);
	if (key_is(e, klen, "read") || key_is(e, klen, "r"))
		return trc_parse_fds(&o->trc.read_fds, eq + 1, err, errlen);
	if (key_is(e, klen, "write") || key_is(e, klen, "w"))
		return trc_parse_fds(&o->trc.write_fds, eq + 1, err, errlen);
	if (key_is(e, klen, "inject") || key_is(e, klen, "fault"))
		return ust_inject_parse(&o->inject, eq + 1, key_is(e, klen, "fault"), err, errlen);
	if (key_is(e, klen, "status"))
		return parse_status(o, eq + 1, err, errlen);
	snprintf(err, errlen, "unsupported qualifier '%.*s'", (int)klen, e);
	return -1;
}

/* --strings-in-hex[=all|non-ascii]: -xx or -x. */
static int parse_hex(struct ust_opts *o, const char *arg, char *err, size_t errlen)
{
	if (!arg || !strcmp(arg, "all"))
		o->trc.xstrings = 2;
	else if (!strcmp(arg, "non-ascii"))
		o->trc.xstrings = 1;
	else {
		snprintf(err, errlen, "unsupported --strings-in-hex mode '%s' (all, non-ascii)",
			 arg);
		return -1;
	}
	return 0;
}

/* --relative-timestamps[=us]: ustrace has strace's default precision only. */
static int parse_relative(struct ust_opts *o, const char *arg, char *err, size_t errlen)
{
	if (arg && strcmp(arg, "us") && strcmp(arg, "u")) {
		snprintf(err, errlen, "unsupported -r precision '%s' (microseconds only)", arg);
		return -1;
	}
	o->trc.relative = true;
	return 0;
}

/* One option; 0, or -1 with a message. */
static int parse_one(struct ust_opts *o, int c, const char *arg, int *tcount, char *err,
		     size_t errlen)
{
	switch (c) {
	case 'a':
		return parse_uint(arg, &o->trc.acolumn, 'a', err, errlen);
	case 'c':
		o->trc.count = TRC_COUNT_ONLY;
		return 0;
	case 'C':
		o->trc.count = TRC_COUNT_TOO;
		return 0;
	case 'e':
	case OPT_TRACE:
	case OPT_SIGNAL:
		o->err_no_help = true; /* cleared again if it parses */
		if (c == OPT_SIGNAL)
			return trc_parse_signals(&o->trc, arg, err, errlen);
		if (c == OPT_TRACE)
			return trc_parse_trace(&o->trc, arg, err, errlen);
		return parse_expr(o, arg, err, errlen);
	case 'f':
	case 'F':
		o->split = o->split || (c == 'f' && o->follow); /* -ff */
		o->follow = true;
		return 0;
	case OPT_SPLIT:
		o->split = o->follow = true;
		return 0;
	case 'h':
		o->action = UST_HELP;
		return 0;
	case 'o':
		o->outfile = arg;
		return 0;
	case 'p':
		return parse_pids(o, arg, err, errlen);
	case 'P':
		return trc_add_path(&o->trc, arg, err, errlen);
	case 'q':
		/* -q: attach and personality messages; -qq: exit lines too; -qqq: all */
		o->trc.quiet = o->trc.quiet & TRC_QUIET_EXIT ? TRC_QUIET_ALL
			       : o->trc.quiet		     ? o->trc.quiet | TRC_QUIET_EXIT
							     : TRC_QUIET_ATTACH | TRC_QUIET_PERS;
		return 0;
	case OPT_QUIET_LONG:
		if (!arg)
			return parse_one(o, 'q', NULL, tcount, err, errlen);
		return trc_parse_quiet(&o->trc, arg, err, errlen);
	case OPT_READ:
	case OPT_WRITE:
		o->err_no_help = true;
		return trc_parse_fds(c == OPT_READ ? &o->trc.read_fds : &o->trc.write_fds, arg, err,
				     errlen);
	case 'v':
	case OPT_NOABBREV:
		memset(o->trc.noabbrev, 0xff, sizeof(o->trc.noabbrev));
		return 0;
	case 'I':
		/* ustrace's own ^C handling is -I2's; the other levels change nothing it prints */
		if (!strcmp(arg, "anywhere") || !strcmp(arg, "always") || !strcmp(arg, "waiting") ||
		    !strcmp(arg, "never") || !strcmp(arg, "never_tstp"))
			return 0;
		if (!arg[0] || arg[1] || arg[0] < '1' || arg[0] > '4') {
			snprintf(err, errlen, "invalid -I argument: '%s'", arg);
			return -1;
		}
		return 0;
	case 'r':
	case OPT_RELATIVE:
		return parse_relative(o, arg, err, errlen);
	case 's':
		return parse_uint(arg, &o->trc.strsize, 's', err, errlen);
	case 't':
		(*tcount)++;
		return 0;
	case 'T':
		o->trc.show_time = true;
		return 0;
	case 'V':
		o->action = UST_VERSION;
		return 0;
	case 'w':
		o->trc.count_wall = true;
		return 0;
	case 'x':
		if (o->trc.xstrings < 2)
			o->trc.xstrings++;
		return 0;
	case OPT_HEX:
		return parse_hex(o, arg, err, errlen);
	case 'y':
		o->trc.decode_fds = true;
		return 0;
	case 'z':
		o->trc.only_ok = true;
		return 0;
	case 'Z':
		o->trc.only_fail = true;
		return 0;
	case OPT_SECCOMP:
		o->seccomp = true;
		return 0;
	}
	snprintf(err, errlen, "unknown option (see 'ustrace -h')");
	return -1;
}

int ust_parse(struct ust_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int c, tcount = 0;

	memset(o, 0, sizeof(*o));
	trc_opts_init(&o->trc);
	optind = 0; /* full reset: ust_parse may run more than once (tests) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+a:cCe:fFhI:o:p:P:qrs:tTvVwxyzZ", longopts, NULL)) !=
	       -1) {
		if (c == '?' || c == ':') {
			snprintf(err, errlen, "invalid option -- '%s'",
				 optopt ? (char[]){(char)optopt, 0} : argv[optind - 1]);
			return -1;
		}
		if (parse_one(o, c, optarg, &tcount, err, errlen))
			return -1;
		o->err_no_help = false;
	}
	o->trc.tstamp = tcount > 3 ? 3 : tcount;
	if (o->action != UST_RUN)
		return 0;
	if (optind < argc)
		o->argv = argv + optind;
	if (!o->argv && !o->npids) {
		snprintf(err, errlen, "must have PROG [ARGS] or -p PID");
		return -1;
	}
	if (o->trc.only_ok && o->trc.only_fail) {
		/* strace: -z and -Z together show both: the usual trace. */
		o->trc.only_ok = o->trc.only_fail = false;
	}
	if (o->split && o->trc.count != TRC_COUNT_OFF) {
		snprintf(err, errlen,
			 "(-c/--summary-only or -C/--summary) and "
			 "-ff/--output-separately are mutually exclusive");
		return -1;
	}
	if (o->outfile && (o->follow || o->npids + (o->argv != NULL) > 1))
		o->trc.pfx = TRC_PFX_PLAIN;
	return 0;
}
