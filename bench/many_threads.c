/* many_threads: starts N threads (argv[1], default 500) that all block in
 * read() on one pipe, then calls ready() once every thread is there; case d
 * runs `info threads` at that point. Every worker has the same stack (worker
 * -> read), so gdb does the same unwinding work in every run. Closing the
 * pipe's write end then lets them all finish. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int pipefd[2];
static int started;

void __attribute__((noinline)) ready(int n)
{
	(void)n;
}

static void *worker(void *arg)
{
	char c;

	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	if (read(pipefd[0], &c, 1) < 0)
		perror("read");
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t attr;

	if (!t || pipe(pipefd))
		return perror("setup"), 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, worker, NULL))
			return perror("pthread_create"), 1;
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n)
		usleep(1000);
	usleep(20000); /* the last ones from the counter into read() */
	ready(n);
	close(pipefd[1]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads=%d\n", n);
	return 0;
}
