/*
 * job_stop.c: a program for job-control tests (tests/e2e/job_stop.t): the
 * main thread ticks (ticker.h, "tick N" every 100 ms), a second thread
 * waits in pause(), so that a SIGSTOP from outside stops two threads, and
 * whether the program runs shows in its output.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "ticker.h"

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, idle, NULL))
		return 1;
	puts("ready");
	fflush(stdout);
	ticker(NULL);
	return 0;
}
