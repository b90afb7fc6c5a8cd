/*
 * thread_exit: threads that end while others are held, for thread events
 * (QThreadEvents) and no-resumed (N) tests.
 *
 * A first worker stops at first_done() and returns while main waits in
 * pthread_join; then a second worker blocks in read() on a pipe nobody
 * writes, and main calls leader_done() and pthread_exit(): the leader is
 * gone, the process lives on in the second worker. With an argument,
 * main exits after the first join instead (exit code 3).
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int pipefd[2];

void first_done(void)
{
	__asm__ volatile("" ::: "memory");
}

void leader_done(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *first(void *arg)
{
	(void)arg;
	first_done();
	return NULL;
}

static void *second(void *arg)
{
	char c;

	(void)arg;
	while (read(pipefd[0], &c, 1) < 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	if (pipe(pipefd) < 0)
		return 1;
	pthread_create(&t, NULL, first, NULL);
	pthread_join(t, NULL);
	if (argc > 1)
		return 3;
	pthread_create(&t, NULL, second, NULL);
	leader_done();
	pthread_exit(NULL);
}
