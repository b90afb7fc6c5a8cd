/*
 * Host (Linux x86) signal numbers <-> gdb's enum gdb_signal, the numbering
 * the remote protocol uses in stop replies and resume packets.
 *
 * gdb's numbers follow no host's order: SIGBUS is 10, SIGUSR1 30, SIGCHLD
 * 20, and the real-time range is split (SIG33..SIG63 are 45..75, SIG32 is
 * 77, SIG64 is 78). Host signals are mapped by raw number, so glibc's
 * SIGRTMIN (34) is SIG34 = 46, as gdbserver reports it.
 *
 * Host signals gdb has no name for (SIGSTKFLT) map to GDB_SIGNAL_UNKNOWN;
 * gdb signals Linux has no equivalent for map to host 0. SIGIO and SIGPOLL
 * are the same host signal: it goes out as SIGIO, and both come back.
 */
#include <signal.h>

#include "gdb.h"

#define GDB_SIGNAL_REALTIME_32 77
#define GDB_SIGNAL_REALTIME_33 45 /* ... through SIG63 = 75 */
#define GDB_SIGNAL_REALTIME_64 78
#define GDB_SIGNAL_UNKNOWN     143

/* gdb's number for each classic host signal (index: host number). */
static const unsigned char gdb_of_host[32] = {
	[SIGHUP] = 1,	[SIGINT] = 2,	 [SIGQUIT] = 3,	 [SIGILL] = 4,	 [SIGTRAP] = 5,
	[SIGABRT] = 6,	[SIGBUS] = 10,	 [SIGFPE] = 8,	 [SIGKILL] = 9,	 [SIGUSR1] = 30,
	[SIGSEGV] = 11, [SIGUSR2] = 31,	 [SIGPIPE] = 13, [SIGALRM] = 14, [SIGTERM] = 15,
	[SIGCHLD] = 20, [SIGCONT] = 19,	 [SIGSTOP] = 17, [SIGTSTP] = 18, [SIGTTIN] = 21,
	[SIGTTOU] = 22, [SIGURG] = 16,	 [SIGXCPU] = 24, [SIGXFSZ] = 25, [SIGVTALRM] = 26,
	[SIGPROF] = 27, [SIGWINCH] = 28, [SIGIO] = 23,	 [SIGPWR] = 32,	 [SIGSYS] = 12,
};

#define GDB_SIGNAL_POLL 33 /* gdb's SIGPOLL: the host's SIGIO */

int gdb_signal_from_host(int sig)
{
	if (sig == 0)
		return 0;
	if (sig > 0 && sig < 32)
		return gdb_of_host[sig] ? gdb_of_host[sig] : GDB_SIGNAL_UNKNOWN;
	if (sig == 32)
		return GDB_SIGNAL_REALTIME_32;
	if (sig >= 33 && sig <= 63)
		return GDB_SIGNAL_REALTIME_33 + (sig - 33);
	if (sig == 64)
		return GDB_SIGNAL_REALTIME_64;
	return GDB_SIGNAL_UNKNOWN;
}

int gdb_signal_to_host(int gsig)
{
	if (gsig <= 0)
		return 0;
	if (gsig == GDB_SIGNAL_POLL)
		return SIGIO;
	if (gsig == GDB_SIGNAL_REALTIME_32)
		return 32;
	if (gsig >= GDB_SIGNAL_REALTIME_33 && gsig <= GDB_SIGNAL_REALTIME_33 + 30)
		return 33 + (gsig - GDB_SIGNAL_REALTIME_33);
	if (gsig == GDB_SIGNAL_REALTIME_64)
		return 64;
	for (int sig = 1; sig < 32; sig++)
		if (gdb_of_host[sig] == gsig)
			return sig;
	return 0;
}
