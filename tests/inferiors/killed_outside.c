/*
 * killed_outside: a process that gdb holds stopped is killed with
 * SIGKILL from outside (as GDB's process-dies-while-detaching.exp).
 *
 * Four threads wait in pause(); main stores its pid in mypid and calls
 * all_started(). With an argument it forks first: the child does that,
 * the parent waits for it and exits 2 if it was killed by a signal.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int mypid;

void all_started(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void run(void)
{
	pthread_t t;

	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, idle, NULL);
	mypid = getpid();
	all_started();
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	pid_t child;
	int status;

	(void)argv;
	if (argc < 2)
		run();
	child = fork();
	if (child == 0)
		run();
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	return WIFSIGNALED(status) ? 2 : 3;
}
