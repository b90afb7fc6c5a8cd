/* tls_vars: thread-local variables, for `print` of a __thread variable.
 * main sets its own copy of tls_value to 44 and libc's errno to 55, then
 * starts one worker that sets its copies to 22 and 33 and calls
 * worker_stop() (break there: each thread's copies differ). main waits
 * for it in pthread_join, prints "tls=44 worker=22" and exits 0.
 * The Makefile also builds it -static (tls_vars_static): the same
 * variables then live in the executable's own TLS block (no link map).
 * With the argument "exec" it first execs itself without it: the TLS
 * symbols gdb found in the old program must not be trusted in the new. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__thread int tls_value = 11;
static int worker_saw;

void main_stop(void)
{
	worker_saw = 0; /* LINE:main-stop */
}

void worker_stop(void)
{
	worker_saw = tls_value; /* LINE:worker-stop */
}

static void *worker(void *arg)
{
	(void)arg;
	tls_value = 22;
	errno = 33;
	worker_stop();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		execl("/proc/self/exe", argv[0], (char *)NULL);
		return 2;
	}
	tls_value = 44;
	errno = 55;
	main_stop();
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("tls=%d worker=%d\n", tls_value, worker_saw);
	return 0;
}
