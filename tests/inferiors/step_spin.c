/* step_spin: one thread spins in user mode for ever (no system call: each
 * time it is stopped counts as a voluntary context switch in its
 * /proc/PID/task/TID/status, and nothing else does), while main calls
 * step_here() in a loop, a millisecond apart (xol_step.t: a step of main
 * over a breakpoint must not stop the spinner). Prints "spinner TID". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile unsigned long spins, calls;
static volatile pid_t spinner;

__attribute__((noinline)) void step_here(void)
{
	calls++;
}

static void *spin(void *arg)
{
	(void)arg;
	spinner = (pid_t)syscall(SYS_gettid);
	for (;;)
		spins++;
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spin, NULL);
	while (!spinner)
		usleep(1000);
	printf("spinner %d\n", (int)spinner);
	fflush(stdout);
	for (;;) {
		step_here(); /* LINE:call */
		usleep(1000);
	}
}
