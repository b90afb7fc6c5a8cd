/*
 * open_stuck GO PATH: a thread that cannot stop, for the let-go tests. A
 * second thread ticks through tick() every 100 ms (a place for a
 * breakpoint in a running thread); the main thread waits until GO exists,
 * says "opening", then opens PATH. With PATH on a FUSE mount whose server
 * is stopped, that open waits in the kernel for an answer, killable but
 * not stoppable: a ptrace interrupt does not stop the thread until the
 * server answers. Then "opened" (or the error), and it pauses.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ticker.h"

int main(int argc, char **argv)
{
	pthread_t t;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: open_stuck GO PATH\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&t, NULL, ticker, NULL);
	printf("ready\n");
	while (access(argv[1], F_OK) < 0)
		usleep(20 * 1000);
	printf("opening\n");
	fd = open(argv[2], O_RDONLY);
	printf(fd < 0 ? "opened: %s\n" : "opened%.0s\n", strerror(errno));
	for (;;)
		pause();
}
