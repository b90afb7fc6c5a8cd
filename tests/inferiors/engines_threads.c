/* engines_threads: threads that loop until killed, for the tests of many
 * clients hammering one process.
 *
 * Three workers call work(id) over and over, each at its own pace:
 *   worker 1: flat out (a breakpoint in work() is hit at once);
 *   worker 2: with a 1 ms sleep between calls;
 *   worker 3: with a 50 ms sleep (mostly blocked in a system call).
 * work() bumps counts[id].  main prints "tick N c1=A c2=B c3=C" every
 * 100 ms, "started" once all workers run.  A sleep that fails (EINTR: a
 * stop or resume leaked to the program) prints "EINTR in ..."; the
 * counters going back prints "BACKWARDS".
 * An argument, if any, is how many seconds to run (default: until killed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NWORKERS 3

volatile unsigned long counts[NWORKERS + 1];

unsigned long work(int id)
{
	counts[id] = counts[id] + 1; /* LINE:work */
	return counts[id];
}

static void nap(long ns, const char *who)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	if (nanosleep(&ts, NULL) < 0)
		printf("EINTR in %s: %d\n", who, errno);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		work(id);
		if (id == 2)
			nap(1000000L, name);
		else if (id == 3)
			nap(50000000L, name);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long secs = argc > 1 ? atol(argv[1]) : 0;
	unsigned long last[NWORKERS + 1] = { 0 };
	pthread_t tid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long id = 1; id <= NWORKERS; id++)
		if (pthread_create(&tid, NULL, worker, (void *)id) != 0) {
			perror("pthread_create");
			return 1;
		}
	printf("started\n");
	for (long n = 1; !secs || n <= secs * 10; n++) {
		nap(100000000L, "main");
		for (int id = 1; id <= NWORKERS; id++) {
			if (counts[id] < last[id])
				printf("BACKWARDS worker %d\n", id);
			last[id] = counts[id];
		}
		printf("tick %ld c1=%lu c2=%lu c3=%lu\n", n, last[1], last[2], last[3]);
	}
	return 0;
}
