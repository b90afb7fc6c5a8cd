/* tp_order [NTHREADS [ITERS]]: NTHREADS threads (default 8) each, ITERS
 * times (default 500), take one lock, count one more on a global counter
 * and, still holding the lock, call hit(id, n) with the counter's new
 * value n (every fifth call: other(id, n) instead), then yield. The calls
 * happen in the order of n: trace frames numbered in the order of the
 * hits have n increasing with the frame number, across threads. Then
 * done(), and "calls N". */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXTHREADS 64

static long iters = 500;
static long counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* noinline: the calls are what the tracepoints sit on */
__attribute__((noinline)) void hit(long id, long n)
{
	__asm__ volatile("" ::"r"(id), "r"(n) : "memory");
}

__attribute__((noinline)) void other(long id, long n)
{
	__asm__ volatile("" ::"r"(id), "r"(n) : "memory");
}

__attribute__((noinline)) void done(void)
{
	__asm__ volatile("");
}

static void *run(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < iters; i++) {
		long n;

		pthread_mutex_lock(&lock);
		n = ++counter;
		if (n % 5)
			hit(id, n);
		else
			other(id, n);
		pthread_mutex_unlock(&lock);
		sched_yield(); /* (the threads take turns: the rings fill together) */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[MAXTHREADS];

	if (argc > 2)
		iters = atol(argv[2]);
	if (nt < 1 || nt > MAXTHREADS)
		return 2;
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	done();
	printf("calls %ld\n", counter);
	return 0;
}
