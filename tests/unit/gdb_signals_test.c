/*
 * Host <-> gdb signal numbering (src/gdb/gdb_signals.c), checked against
 * the numbers in gdb's include/gdb/signals.def.
 */
#include <signal.h>
#include <stdbool.h>

#include "gdb/gdb.h"
#include "tap.h"

static const struct {
	int host, gdb;
	const char *name;
} fixed[] = {
	{SIGHUP, 1, "SIGHUP"},
	{SIGINT, 2, "SIGINT"},
	{SIGQUIT, 3, "SIGQUIT"},
	{SIGILL, 4, "SIGILL"},
	{SIGTRAP, 5, "SIGTRAP"},
	{SIGABRT, 6, "SIGABRT"},
	{SIGBUS, 10, "SIGBUS"},
	{SIGFPE, 8, "SIGFPE"},
	{SIGKILL, 9, "SIGKILL"},
	{SIGUSR1, 30, "SIGUSR1"},
	{SIGSEGV, 11, "SIGSEGV"},
	{SIGUSR2, 31, "SIGUSR2"},
	{SIGPIPE, 13, "SIGPIPE"},
	{SIGALRM, 14, "SIGALRM"},
	{SIGTERM, 15, "SIGTERM"},
	{SIGCHLD, 20, "SIGCHLD"},
	{SIGCONT, 19, "SIGCONT"},
	{SIGSTOP, 17, "SIGSTOP"},
	{SIGTSTP, 18, "SIGTSTP"},
	{SIGTTIN, 21, "SIGTTIN"},
	{SIGTTOU, 22, "SIGTTOU"},
	{SIGURG, 16, "SIGURG"},
	{SIGXCPU, 24, "SIGXCPU"},
	{SIGXFSZ, 25, "SIGXFSZ"},
	{SIGVTALRM, 26, "SIGVTALRM"},
	{SIGPROF, 27, "SIGPROF"},
	{SIGWINCH, 28, "SIGWINCH"},
	{SIGIO, 23, "SIGIO"},
	{SIGPWR, 32, "SIGPWR"},
	{SIGSYS, 12, "SIGSYS"},
	{SIGSTKFLT, 143, "SIGSTKFLT (unknown to gdb)"},
	{32, 77, "SIG32"},
	{33, 45, "SIG33"},
	{34, 46, "SIG34 (glibc SIGRTMIN)"},
	{40, 52, "SIG40"},
	{63, 75, "SIG63"},
	{64, 78, "SIG64 (SIGRTMAX)"},
};

int main(void)
{
	int seen[256] = {0};
	bool injective = true;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		is_int(gdb_signal_from_host(fixed[i].host), fixed[i].gdb, "from_host(%s) = %d",
		       fixed[i].name, fixed[i].gdb);
	}

	for (int sig = 1; sig <= 64; sig++) {
		int g = gdb_signal_from_host(sig);

		if (sig == SIGSTKFLT)
			continue;
		is_int(gdb_signal_to_host(g), sig, "host %d round-trips through gdb %d", sig, g);
		if (g > 0 && g < 256 && seen[g]++)
			injective = false;
	}
	ok(injective, "distinct host signals get distinct gdb numbers");
	is_int(gdb_signal_from_host(SIGRTMIN), 45 + (SIGRTMIN - 33), "SIGRTMIN maps by raw number");

	is_int(gdb_signal_from_host(0), 0, "host 0 -> 0");
	is_int(gdb_signal_to_host(0), 0, "gdb 0 -> 0");
	is_int(gdb_signal_from_host(65), 143, "host 65 -> GDB_SIGNAL_UNKNOWN");
	is_int(gdb_signal_from_host(-3), 143, "negative host signal -> GDB_SIGNAL_UNKNOWN");
	is_int(gdb_signal_to_host(33), SIGIO, "gdb SIGPOLL -> host SIGIO");
	is_int(gdb_signal_to_host(7), 0, "gdb SIGEMT has no host signal");
	is_int(gdb_signal_to_host(29), 0, "gdb SIGLOST has no host signal");
	is_int(gdb_signal_to_host(76), 0, "gdb SIGCANCEL has no host signal");
	is_int(gdb_signal_to_host(79), 0, "gdb SIG65 has no host signal");
	is_int(gdb_signal_to_host(143), 0, "GDB_SIGNAL_UNKNOWN -> 0");
	is_int(gdb_signal_to_host(151), 0, "GDB_SIGNAL_LAST -> 0");
	is_int(gdb_signal_to_host(-1), 0, "negative gdb signal -> 0");
	return done_testing();
}
