/* trace_loop: the same few system calls again and again, with a
 * breakpoint target between them: for ustrace beside gdb
 * (tests/e2e/ustrace_gdb*.t) and its benchmark.
 *
 *	trace_loop N US [gate] [thread]
 *
 * Each iteration i calls tick(i) (the breakpoint target), then makes
 * exactly these system calls, whose strace lines are the same every time:
 *	getppid()
 *	write(3, "tick\n", 5) = 5			(fd 3: /dev/null)
 *	openat(AT_FDCWD, "/nonexistent/trace_loop", O_RDONLY) = -1 ENOENT
 * then, with US > 0, sleeps US microseconds.  N = 0: for ever.
 * "gate": first wait for one line on stdin (the test attaches meanwhile).
 * "thread": a second thread runs the same loop beside main (for -f).
 * At the end: write(1, "trace_loop done n=N\n") and exit status 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int iterations, pause_us, devnull;
volatile int progress; /* iterations main has finished */

int tick(int i)
{
	return i + progress; /* LINE:tick */
}

static void *run(void *main_thread)
{
	for (int i = 0; iterations == 0 || i < iterations; i++) {
		if (main_thread)
			tick(i);
		syscall(SYS_getppid);
		if (write(devnull, "tick\n", 5) != 5)
			exit(2);
		if (open("/nonexistent/trace_loop", O_RDONLY) >= 0)
			exit(3);
		if (main_thread)
			progress = i + 1;
		if (pause_us > 0)
			usleep(pause_us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	bool gate = false, thread = false;
	pthread_t th;
	char line[64];

	iterations = argc > 1 ? atoi(argv[1]) : 3;
	pause_us = argc > 2 ? atoi(argv[2]) : 0;
	for (int i = 3; i < argc; i++) {
		gate |= !strcmp(argv[i], "gate");
		thread |= !strcmp(argv[i], "thread");
	}
	if (gate && read(0, line, sizeof(line)) < 0)
		return 4;
	devnull = open("/dev/null", O_WRONLY);
	if (devnull != 3)
		return 5;
	if (thread && pthread_create(&th, NULL, run, NULL))
		return 6;
	run((void *)1);
	if (thread)
		pthread_join(th, NULL);
	snprintf(line, sizeof(line), "trace_loop done n=%d\n", progress);
	return write(1, line, strlen(line)) > 0 ? 0 : 7;
}
