/*
 * fork_threads: four threads fork (or vfork, with an argument) children
 * that exit at once, again and again, while main loops over a few lines
 * a debugger steps through: forks land in the middle of its steps, and
 * several may be waiting to be reported at once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int use_vfork;

static void *forker(void *arg)
{
	(void)arg;
	for (;;) {
		pid_t pid = use_vfork ? vfork() : fork();
		int status;

		if (pid == 0)
			_exit(11);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 11)
			abort();
		usleep(20 * 1000);
	}
	return NULL;
}

static void nap(void)
{
	usleep(25 * 1000);
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	use_vfork = argc > 1;
	alarm(120);
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, forker, NULL);
	for (;;) {
		nap(); /* LINE:step */
		nap(); /* LINE:next */
	}
}
