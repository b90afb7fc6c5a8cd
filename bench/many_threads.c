/* many_threads: starts N threads (argv[1], default 500) that all block on a
 * condition variable, then calls ready() once every thread exists; case d
 * runs `info threads` there. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started, go;

void __attribute__((noinline)) ready(int n)
{
	(void)n;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	started++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, worker, NULL))
			return perror("pthread_create"), 1;
	pthread_mutex_lock(&mu);
	while (started < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	ready(n);
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads=%d\n", n);
	return 0;
}
