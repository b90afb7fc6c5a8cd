/*
 * ticker.h: a thread that runs through tick() every 100 ms, printing
 * "tick N": a running thread with a place for a breakpoint, beside a
 * thread the test keeps from stopping (vfork_stuck.c, open_stuck.c).
 */
#ifndef TICKER_H
#define TICKER_H

#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void tick(unsigned long n)
{
	printf("tick %lu\n", n);
	fflush(stdout);
}

static void *ticker(void *arg)
{
	(void)arg;
	for (unsigned long n = 0;; n++) {
		tick(n);
		usleep(100 * 1000);
	}
	return NULL;
}

#endif
