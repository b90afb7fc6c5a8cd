/*
 * thread_exec: a thread other than the leader execs the program again
 * (with an argument, so that the new image just exits 5): the kernel
 * reports the exec under the leader's tid.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static char *image;

static void *execer(void *arg)
{
	(void)arg;
	execl(image, image, "again", (char *)NULL); /* LINE:exec */
	abort();
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		return 5; /* LINE:again */
	image = argv[0];
	pthread_create(&t, NULL, execer, NULL);
	pthread_join(t, NULL);
	return 1;
}
