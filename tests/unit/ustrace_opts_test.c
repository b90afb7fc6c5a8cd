/*
 * ustrace's command line (src/ustrace/ustrace_opts.c): strace's spelling
 * of every option, and the errors strace gives.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "tap.h"
#include "ustrace/ustrace.h"

static struct ust_opts o;
static char err[256];

/* Parse a NULL-terminated list of words; returns ust_parse's result. */
#define PARSE(...) parse((char *[]){"ustrace", __VA_ARGS__, NULL})

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	err[0] = 0;
	return ust_parse(&o, argc, argv, err, sizeof(err));
}

int main(void)
{
	is_int(PARSE("ls", "-l"), 0, "PROG ARGS");
	ok(o.argv && !strcmp(o.argv[0], "ls") && !strcmp(o.argv[1], "-l"), "... kept as given");
	is_int(o.trc.strsize, 32, "-s defaults to 32");

	is_int(PARSE("-f", "-s", "64", "-tt", "-T", "-y", "-o", "out", "prog"), 0, "many options");
	ok(o.follow && o.trc.strsize == 64 && o.trc.tstamp == 2 && o.trc.show_time &&
		   o.trc.decode_fds && !strcmp(o.outfile, "out"),
	   "... each one set");
	is_int(o.trc.pfx, TRC_PFX_PLAIN, "-o with -f: plain pid prefixes");

	is_int(PARSE("-p", "12,34", "-p", "56"), 0, "-p lists");
	is_int(o.npids, 3, "three pids");
	is_int(o.pids[2], 56, "in order");
	ok(!o.argv, "no program with -p");

	is_int(PARSE("-e", "trace=%network", "-e", "signal=!SIGCHLD", "prog"), 0, "-e qualifiers");
	ok(trc_set_has(&o.trc.trace[TRC_PERS_64], SYS_connect) &&
		   !trc_set_has(&o.trc.trace[TRC_PERS_64], SYS_read),
	   "trace=%%network");
	ok(!trc_set_has(&o.trc.signals, 17) && trc_set_has(&o.trc.signals, 10), "signal=!SIGCHLD");
	is_int(PARSE("-e", "write", "prog"), 0, "-e NAME alone");
	is_int(trc_traced_nrs(&o.trc, TRC_PERS_64, NULL, 0), 1, "... traces NAME only");

	is_int(PARSE("-c", "-qq", "--seccomp-bpf", "prog"), 0, "-c -qq --seccomp-bpf");
	ok(o.trc.count == TRC_COUNT_ONLY &&
		   o.trc.quiet == (TRC_QUIET_ATTACH | TRC_QUIET_PERS | TRC_QUIET_EXIT) && o.seccomp,
	   "... set");
	is_int(PARSE("-q", "prog"), 0, "-q");
	is_int(o.trc.quiet, TRC_QUIET_ATTACH | TRC_QUIET_PERS, "... attach and personality");
	is_int(PARSE("-qqq", "prog"), 0, "-qqq");
	is_int(o.trc.quiet, TRC_QUIET_ALL, "... everything");
	is_int(PARSE("-e", "quiet=exit,attach", "prog"), 0, "-e quiet=exit,attach");
	is_int(o.trc.quiet, TRC_QUIET_ATTACH | TRC_QUIET_EXIT, "... those two");
	is_int(PARSE("-e", "silent=!attach", "prog"), 0, "-e silent=!attach");
	is_int(o.trc.quiet, TRC_QUIET_ALL & ~TRC_QUIET_ATTACH, "... all but attach");
	is_int(PARSE("--quiet=exit", "prog"), 0, "--quiet=exit");
	is_int(o.trc.quiet, TRC_QUIET_EXIT, "... exit");
	is_int(PARSE("-e", "quiet=bogus", "prog"), -1, "-e quiet=bogus refused");
	is_int(PARSE("-v", "prog"), 0, "-v");
	ok(trc_opt_in(o.trc.noabbrev, TRC_PERS_64, SYS_fstat) &&
		   trc_opt_in(o.trc.noabbrev, TRC_PERS_32, 5),
	   "... nothing abbreviated");
	is_int(PARSE("-e", "abbrev=!fstat", "prog"), 0, "-e abbrev=!fstat");
	ok(trc_opt_in(o.trc.noabbrev, TRC_PERS_64, SYS_fstat) &&
		   !trc_opt_in(o.trc.noabbrev, TRC_PERS_64, SYS_newfstatat),
	   "... fstat whole, newfstatat abbreviated");
	is_int(PARSE("--no-abbrev", "-e", "verbose=none", "-e", "raw=%file", "prog"), 0,
	       "--no-abbrev -e verbose=none -e raw=%%file");
	ok(trc_opt_in(o.trc.noverbose, TRC_PERS_64, SYS_fstat) &&
		   trc_opt_in(o.trc.raw, TRC_PERS_64, SYS_openat) &&
		   !trc_opt_in(o.trc.raw, TRC_PERS_64, SYS_read),
	   "... sets");
	is_int(PARSE("-e", "status=failed", "prog"), 0, "-e status=failed");
	ok(o.trc.only_fail && !o.trc.only_ok, "... as -Z");
	is_int(PARSE("-e", "status=!failed", "prog"), 0, "-e status=!failed");
	ok(!o.trc.only_fail && o.trc.only_ok, "... as -z");
	is_int(PARSE("-e", "status=detached", "prog"), -1, "-e status=detached refused");
	is_int(PARSE("-I2", "prog"), 0, "-I2");
	is_int(PARSE("-e", "trace=/^(get|set)ppid$,/^restart", "prog"), 0, "trace=/REGEX");
	ok(trc_opt_in(o.trc.trace, TRC_PERS_64, SYS_getppid) &&
		   trc_opt_in(o.trc.trace, TRC_PERS_64, SYS_restart_syscall) &&
		   !trc_opt_in(o.trc.trace, TRC_PERS_64, SYS_getpid),
	   "... the names that match");
	is_int(PARSE("-e", "trace=/(", "prog"), -1, "... a bad one refused");
	/* glibc's regcomp() takes exponential time in stacked repetitions */
	is_int(PARSE("-e", "trace=/a+++++++++++++++++++++++++++++++", "prog"), -1,
	       "... so does one whose repetitions would take regcomp() forever");
	/* (a ',' separates names: no "{m,n}" here) */
	is_int(PARSE("-e", "trace=/a{32}{32}{32}", "prog"), -1, "... stacked intervals too");
	is_int(PARSE("-e", "trace=/a{99999999999999999999999}", "prog"), -1,
	       "... and a huge interval");
	is_int(PARSE("-e", "trace=/^[*+?{]*(get|set)p*i{1}d?$", "prog"), 0,
	       "... repetitions with a small product pass, and []'s members are not any");
	ok(trc_opt_in(o.trc.trace, TRC_PERS_64, SYS_getpid), "... and match");
	is_int(PARSE("-I5", "prog"), -1, "-I5 refused");
	is_int(PARSE("-e", "inject=chdir:error=ENOENT:signal=USR1:when=2+3", "prog"), 0,
	       "-e inject=chdir:error=ENOENT:signal=USR1:when=2+3");
	ok(o.inject.nrules == 1 && o.inject.rule[TRC_PERS_64][SYS_chdir] == 1 &&
		   !o.inject.rule[TRC_PERS_64][SYS_read] && o.inject.rules[0].error == ENOENT &&
		   o.inject.rules[0].signal == SIGUSR1 && o.inject.rules[0].first == 2 &&
		   o.inject.rules[0].step == 3 && o.inject.rules[0].last == 65535,
	   "... the rule");
	is_int(PARSE("-e", "fault=exit_group", "-e", "inject=!%process:retval=42:when=3..5",
		     "prog"),
	       0, "-e fault=SET, then -e inject=!%%process:retval=42:when=3..5");
	ok(o.inject.nrules == 2 && o.inject.rules[0].error == ENOSYS &&
		   o.inject.rule[TRC_PERS_64][SYS_exit_group] == 1 &&
		   o.inject.rule[TRC_PERS_64][SYS_read] == 2 && o.inject.rules[1].has_retval &&
		   o.inject.rules[1].retval == 42 && o.inject.rules[1].first == 3 &&
		   o.inject.rules[1].last == 5 && o.inject.rules[1].step == 0,
	   "... fault's default ENOSYS, the later rule for the syscalls it names");
	is_int(PARSE("-e", "inject=chdir", "prog"), -1, "-e inject= without what: refused");
	is_int(PARSE("-e", "inject=chdir:error=NOSUCH", "prog"), -1, "... an unknown errno");
	is_int(PARSE("-e", "inject=chdir:retval=1:when=0", "prog"), -1, "... when=0");
	is_int(PARSE("--interruptible=never_tstp", "prog"), 0, "--interruptible=never_tstp");
	is_int(PARSE("-C", "-z", "prog"), 0, "-C -z");
	ok(o.trc.count == TRC_COUNT_TOO && o.trc.only_ok, "... set");
	ok(!o.trc.count_wall, "-c sums system time by default");
	is_int(PARSE("-c", "-w", "prog"), 0, "-c -w");
	ok(o.trc.count == TRC_COUNT_ONLY && o.trc.count_wall, "... wall-clock time");
	is_int(PARSE("-C", "--summary-wall-clock", "prog"), 0, "-C --summary-wall-clock");
	ok(o.trc.count_wall, "... wall-clock time");

	is_int(PARSE("-x", "-r", "prog"), 0, "-x -r");
	ok(o.trc.xstrings == 1 && o.trc.relative, "... non-ASCII strings in hex, relative times");
	is_int(PARSE("-xx", "-x", "prog"), 0, "-xx -x");
	is_int(o.trc.xstrings, 2, "... all strings in hex, no more");
	is_int(PARSE("--strings-in-hex", "prog"), 0, "--strings-in-hex");
	is_int(o.trc.xstrings, 2, "... is -xx");
	is_int(PARSE("--strings-in-hex=non-ascii", "--relative-timestamps", "prog"), 0,
	       "--strings-in-hex=non-ascii --relative-timestamps");
	ok(o.trc.xstrings == 1 && o.trc.relative, "... are -x -r");
	is_int(PARSE("--strings-in-hex=non-ascii-chars", "prog"), -1, "escapes-only hex refused");
	is_int(PARSE("--relative-timestamps=ns", "prog"), -1, "another -r precision refused");

	is_int(PARSE("-ff", "-o", "out", "prog"), 0, "-ff -o");
	ok(o.split && o.follow, "... a file per task, following");
	is_int(PARSE("-f", "prog"), 0, "-f");
	ok(o.follow && !o.split, "... one output");
	is_int(PARSE("--output-separately", "-o", "out", "prog"), 0, "--output-separately");
	ok(o.split && o.follow, "... is -ff");
	is_int(PARSE("-ff", "-c", "prog"), -1, "-ff -c");
	is_str(err,
	       "(-c/--summary-only or -C/--summary) and -ff/--output-separately are mutually "
	       "exclusive",
	       "... strace's message");

	is_int(PARSE("-P", "/nonexistent/a", "--trace-path=/nonexistent/b", "prog"), 0, "-P twice");
	ok(trc_path_wanted(&o.trc, "/nonexistent/a") && trc_path_wanted(&o.trc, "/nonexistent/b") &&
		   !trc_path_wanted(&o.trc, "/nonexistent"),
	   "... both paths, nothing else");
	is_int(PARSE("-P", "", "prog"), -1, "-P with an empty path");

	is_int(PARSE("-h"), 0, "-h");
	is_int(o.action, UST_HELP, "... asks for help");
	is_int(PARSE("-V"), 0, "-V");
	is_int(o.action, UST_VERSION, "... asks for the version");

	is_int(PARSE("-f"), -1, "nothing to trace");
	is_str(err, "must have PROG [ARGS] or -p PID", "... strace's message");
	is_int(PARSE("-p", "x1"), -1, "bad pid");
	is_str(err, "Invalid process id: 'x1'", "... strace's message");
	is_int(PARSE("-s", "-3", "prog"), -1, "bad -s");
	is_int(PARSE("-e", "trace=nope", "prog"), -1, "unknown syscall");
	is_int(PARSE("-e", "kvm=vcpu", "prog"), -1, "unsupported qualifier refused");
	is_int(PARSE("-X", "prog"), -1, "unknown option");
	return done_testing();
}
