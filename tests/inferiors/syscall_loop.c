/* syscall_loop: for the syscall-catching tests (catch syscall, QCatchSyscalls).
 *
 * Each iteration i (0, 1, ...) calls tick(i), a breakpoint target, then
 * makes exactly three system calls, always in this order:
 *	getpid, getppid, write(1, "tick I\n")
 * and then counts the iteration done in `progress`.  Nothing else in the
 * loop makes a system call (unless a sleep is asked for: see below), so a
 * client catching syscalls knows exactly which stop comes next.  At the end
 * it writes "syscall_loop done n=N exit=11" (one write) and exits with 11.
 *
 *	argv[1]  iterations (default 3)
 *	argv[2]  microseconds to sleep at the end of each iteration (default
 *	         0: no sleep, and so no nanosleep system call)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_CODE 11

volatile int progress; /* iterations finished */
volatile long last_pid, last_ppid;

int tick(int i)
{
	return i + progress; /* LINE:tick */
}

static void say(const char *s)
{
	/* one write(2), never stdio buffering */
	if (write(1, s, strlen(s)) < 0) /* LINE:write */
		exit(2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int pause_us = argc > 2 ? atoi(argv[2]) : 0;
	char line[64];

	for (int i = 0; i < n; i++) {
		tick(i);
		last_pid = syscall(SYS_getpid); /* LINE:getpid */
		last_ppid = syscall(SYS_getppid);
		snprintf(line, sizeof(line), "tick %d\n", i);
		say(line);
		progress = i + 1;
		if (pause_us > 0)
			usleep(pause_us);
	}
	snprintf(line, sizeof(line), "syscall_loop done n=%d exit=%d\n", progress, EXIT_CODE);
	say(line);
	return EXIT_CODE;
}
