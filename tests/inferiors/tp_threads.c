/* tp_threads [NTHREADS [ITERS [wait]]]: NTHREADS threads (default 8) each
 * call hit(id, i, buf) for i = 0 .. ITERS-1 (default 100), buf a 64-byte
 * stack array whose byte k is (id * 16 + i + k) & 0xff, and keep a global
 * count; then main calls done() and prints "calls N" (NTHREADS*ITERS when
 * every call was made once) and "text ok" if hit()'s code in memory is
 * the file's (no trap left behind). A tracepoint on hit() collects id, i,
 * the buffer and the registers: each value is known from the other two.
 * With "wait", the threads start once a line has been read from stdin.
 * With TP_TIME set in its environment, it also prints "elapsed_ns N": the
 * wall time from the first thread's start to the last one's end (for
 * bench/tracepoint.sh: a hit's cost without gdb's). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "text_ok.h"

#define MAXTHREADS 64

static long iters = 100;
static long calls;
long tp_global = 0x1122334455667788;

/* noinline: the call is what the tracepoint sits on */
__attribute__((noinline)) void hit(long id, long i, const unsigned char *buf)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	__asm__ volatile("" ::"r"(buf) : "memory");
	(void)id;
	(void)i;
}

__attribute__((noinline)) void done(void)
{
	__asm__ volatile("");
}

static void *run(void *arg)
{
	long id = (long)arg;
	unsigned char buf[64];

	for (long i = 0; i < iters; i++) {
		for (int k = 0; k < 64; k++)
			buf[k] = (unsigned char)(id * 16 + i + k);
		hit(id, i, buf);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[MAXTHREADS];
	struct timespec t0, t1;

	if (argc > 2)
		iters = atol(argv[2]);
	if (n < 1 || n > MAXTHREADS)
		return 2;
	if (argc > 3) {
		char line[64];

		if (!fgets(line, sizeof(line), stdin))
			return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("TP_TIME")) {
		printf("elapsed_ns %lld\n",
		       (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec);
		fflush(stdout);
	}
	done();
	printf("calls %ld\n", calls);
	if (text_ok((void *)hit))
		printf("text ok\n");
	return 0;
}
