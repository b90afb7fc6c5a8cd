/*
 * A process with a thread that cannot stop: the main thread waits in
 * vfork() for a child that pauses until it is killed, while a second
 * thread ticks. A debugger's attach can stop the ticker but not the vfork
 * parent (its wait only ends with the child), which is what attach_stuck.t
 * needs. The child prints its pid; after it is gone the parent says
 * "vfork done". With an argument FILE the vfork waits until FILE exists,
 * so that a debugger can attach first (and put a breakpoint in tick()).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ticker.h"

int main(int argc, char **argv)
{
	pthread_t t;
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&t, NULL, ticker, NULL);
	printf("ready\n");
	while (argc > 1 && access(argv[1], F_OK) < 0)
		usleep(20 * 1000);
	if (vfork() == 0) {
		/* system calls and plain stores only: the child borrows the parent's memory */
		long pid = syscall(SYS_getpid);
		char *p = line + sizeof(line);

		*--p = '\n';
		do
			*--p = (char)('0' + pid % 10);
		while (pid /= 10);
		memcpy(p -= 6, "child ", 6);
		syscall(SYS_write, 1, p, line + sizeof(line) - p);
		syscall(SYS_pause);
		syscall(SYS_exit, 0);
	}
	printf("vfork done\n");
	for (;;)
		pause();
}
