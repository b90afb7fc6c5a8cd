/* hot_threads [NTHREADS [ITERS [wait]]]: NTHREADS threads (default 1) each call
 * work(id, i) for i = 0 .. ITERS-1 (default 1000), then main prints
 * "sums ok" if every thread's sum of i is ITERS*(ITERS-1)/2 (else the
 * first wrong one), and "text ok" if the code of work() in memory is the
 * bytes of the executable file (no trap of a debugger left behind), and
 * exits 0.  A debugger's conditional breakpoint or dprintf on work()
 * is hit NTHREADS*ITERS times.  With "wait", the threads start once a line
 * has been read from stdin (time for a debugger to attach).  SIGUSR1 is
 * counted by a handler (printed as "signals N"): signals that land while
 * a thread runs a breakpoint's instruction somewhere else. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text_ok.h"

#define MAXTHREADS 256

static long iters = 1000;
static long sums[MAXTHREADS];
static volatile sig_atomic_t signals;

static void on_usr1(int sig)
{
	(void)sig;
	signals++;
}

/* noinline: the call is what the breakpoint sits on */
__attribute__((noinline)) void work(int id, long i)
{
	sums[id] += i; /* LINE:work-body */
}

static void *run(void *arg)
{
	int id = (int)(long)arg;

	for (long i = 0; i < iters; i++)
		work(id, i);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[MAXTHREADS];

	signal(SIGUSR1, on_usr1);
	if (argc > 2)
		iters = atol(argv[2]);
	if (n < 1 || n > MAXTHREADS)
		return 2;
	if (argc > 3) {
		char line[64];

		if (!fgets(line, sizeof(line), stdin))
			return 3;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++) {
		if (sums[i] != iters * (iters - 1) / 2) {
			printf("sum of thread %d is %ld\n", i, sums[i]);
			return 1;
		}
	}
	printf("sums ok\n"); /* LINE:sums-ok */
	printf("signals %d\n", (int)signals);
	printf(text_ok((const void *)work) ? "text ok\n" : "text modified\n");
	return 0;
}
