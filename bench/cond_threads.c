/* cond_threads N ITERS: N threads each call hit(i) for i = 0 .. ITERS-1;
 * cases x1, x8, x64 (a breakpoint whose condition is never true, so
 * every call is a hit the server must step over without reporting it).
 * Prints "calls=N*ITERS" at the end so the runner can check the count. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long iters;
static long calls[256];

void __attribute__((noinline)) hit(int id, long i)
{
	calls[id] += i >= 0;
}

static void *run(void *arg)
{
	int id = (int)(long)arg;

	for (long i = 0; i < iters; i++)
		hit(id, i);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[256];
	long total = 0;

	iters = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > 256)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		total += calls[i];
	printf("calls=%ld\n", total);
	return 0;
}
