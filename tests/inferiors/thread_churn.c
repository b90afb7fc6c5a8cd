/*
 * thread_churn: threads that are born and die in bursts, several created
 * at once by different threads (as GDB's gdb.threads/multi-create.exp).
 *
 * Each of ROUNDS rounds starts a creator thread; it and main each start
 * BURST short threads and join them, then main calls round_done(). A
 * short thread may run and end before its creator's clone event is
 * reaped: the tracer must not then take the dead thread for a new one.
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 40
#define BURST  8

static volatile int work;

void round_done(int n)
{
	(void)n;
	__asm__ volatile("" ::: "memory");
}

static void *shortlived(void *arg)
{
	__atomic_add_fetch(&work, 1, __ATOMIC_RELAXED);
	return arg;
}

static void *creator(void *arg)
{
	pthread_t t[BURST];

	for (int i = 0; i < BURST; i++)
		pthread_create(&t[i], NULL, shortlived, NULL);
	for (int i = 0; i < BURST; i++)
		pthread_join(t[i], NULL);
	return arg;
}

int main(void)
{
	for (int n = 0; n < ROUNDS; n++) {
		pthread_t c;

		pthread_create(&c, NULL, creator, NULL);
		creator(NULL);
		pthread_join(c, NULL);
		round_done(n); /* LINE:round-done */
	}
	printf("work=%d\n", work);
	return 0;
}
