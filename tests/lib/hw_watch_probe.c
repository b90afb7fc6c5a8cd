/*
 * hw_watch_probe: exits 0 when this machine's debug registers work, that is
 * when a write watchpoint set through PTRACE_POKEUSER on a child stops it
 * with SIGTRAP. Some virtual machines accept the registers and never trap
 * (seen on a PVM guest, native gdb included); the end-to-end tests skip
 * their hardware watchpoint checks there instead of failing.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int watched;

#define DR_OFFSET(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(long))
/* DR7: local enable of DR0, break on data writes (RW0 = 01), 4 bytes (LEN0 = 11). */
#define DR7_W4_DR0 (1ul | 1ul << 16 | 3ul << 18)

static int fail(pid_t child, const char *why)
{
	fprintf(stderr, "hw_watch_probe: %s\n", why);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 1;
}

int main(void)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		watched = 1;
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		return fail(child, "the child did not stop");
	if (ptrace(PTRACE_POKEUSER, child, (void *)DR_OFFSET(0), (void *)&watched) < 0 ||
	    ptrace(PTRACE_POKEUSER, child, (void *)DR_OFFSET(7), (void *)DR7_W4_DR0) < 0)
		return fail(child, "the debug registers cannot be set");
	if (ptrace(PTRACE_CONT, child, NULL, NULL) < 0)
		return fail(child, "PTRACE_CONT failed");
	if (waitpid(child, &status, 0) != child)
		return fail(child, "waitpid failed");
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP)
		return fail(child, "the watched write did not trap");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
