/* spin_threads [N]: N threads (default 20) spin for ever on "spins++" (a
 * breakpoint there is hit as fast as a thread can come back to it); once
 * all are spinning main calls all_started() and waits. */
#include <pthread.h>
#include <stdlib.h>

#define MAXTHREADS 64

volatile int always_zero;
volatile unsigned int spins;
static pthread_barrier_t started;

__attribute__((noinline)) void all_started(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *spin(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	for (;;)
		spins++; /* LINE:spin */
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	pthread_t t;

	if (n < 1 || n > MAXTHREADS)
		return 2;
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, spin, NULL);
	pthread_barrier_wait(&started);
	all_started();
	pthread_join(t, NULL);
	return 0;
}
