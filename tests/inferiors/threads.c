/* threads: main starts NWORKERS threads named "worker-1".."worker-3".
 * Each names itself, then runs worker_fn(id), which waits at two
 * barriers shared with main:
 *   named: every worker has its name;  main then calls all_named()
 *          (break there: every worker is alive, named and in worker_fn);
 *   go:    the workers compute squares[id] = id * id and return.
 * main joins them, prints "sum=14" (1 + 4 + 9) and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 3

static pthread_barrier_t named, go;
int squares[NWORKERS + 1];
int workers_named; /* main sets it once all workers have their names */

int worker_fn(int id)
{
	pthread_barrier_wait(&named); /* LINE:worker-wait */
	pthread_barrier_wait(&go);
	squares[id] = id * id;
	return squares[id];
}

static void *worker_main(void *arg)
{
	int id = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	worker_fn(id);
	return NULL;
}

/* Called by main when every worker is named and parked in worker_fn. */
void all_named(void)
{
	workers_named = NWORKERS; /* LINE:all-named */
}

int main(void)
{
	pthread_t tid[NWORKERS + 1];
	int id, sum = 0;

	pthread_barrier_init(&named, NULL, NWORKERS + 1);
	pthread_barrier_init(&go, NULL, NWORKERS + 1);
	for (id = 1; id <= NWORKERS; id++)
		if (pthread_create(&tid[id], NULL, worker_main, (void *)(long)id) != 0) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&named);
	all_named();
	pthread_barrier_wait(&go);
	for (id = 1; id <= NWORKERS; id++) {
		pthread_join(tid[id], NULL);
		sum += squares[id];
	}
	printf("sum=%d\n", sum);
	return 0;
}
