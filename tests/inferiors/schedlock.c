/* schedlock: main and one worker spin, each on its own counter, until
 * killed.  main calls both_running() once the worker has counted, so a
 * breakpoint there finds both threads in their loops; spin(id) is the
 * loop (id 0 main, 1 the worker), its test and its body on lines of
 * their own so that `next` stops at each.  With gdb's scheduler-locking a
 * resumed thread's counter moves and the other's must not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

volatile unsigned long counts[2];
volatile int stop_spinning; /* never set: the loop's test is a line of its own */

void both_running(void)
{
}

static void bump(int id)
{
	counts[id]++;
}

void spin(int id)
{
	while (!stop_spinning) {
		bump(id); /* LINE:spin-loop */
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "spinner");
	spin(1);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (counts[1] == 0)
		usleep(1000);
	both_running();
	spin(0);
	return 0;
}
