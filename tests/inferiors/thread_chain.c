/*
 * Threads that live a moment each: every thread starts its successor,
 * calls hit() and exits. Two kinds, as many programs have: relays take
 * turns on a mutex (the others wait on it), chains wait for their
 * predecessor to end (pthread_join). At any time threads are being made
 * and others are going, so an attach that lists the threads once misses
 * some (a successor made while its maker was being seized, whose maker is
 * gone before the next look). A missed thread that runs into a
 * breakpoint's int3 untraced kills the program with SIGTRAP.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define RELAYS 50
#define CHAINS 50

volatile unsigned long hits;
static pthread_mutex_t relay_turn = PTHREAD_MUTEX_INITIALIZER;
static pthread_attr_t detached, joinable;
static pthread_t main_thread;

void __attribute__((noinline)) hit(void)
{
	hits++;
}

static void start(pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	pthread_t t;

	while (pthread_create(&t, attr, fn, arg) != 0)
		usleep(1000);
}

static void *relay(void *arg)
{
	pthread_mutex_lock(&relay_turn);
	start(&detached, relay, arg);
	hit();
	pthread_mutex_unlock(&relay_turn);
	return NULL;
}

static void *chain(void *arg)
{
	pthread_t *prev = arg;

	if (!pthread_equal(*prev, main_thread))
		pthread_join(*prev, NULL);
	*prev = pthread_self();
	start(&joinable, chain, prev);
	hit();
	return NULL;
}

int main(void)
{
	main_thread = pthread_self();
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	pthread_attr_init(&joinable);
	for (int i = 0; i < CHAINS; i++) {
		pthread_t *prev = malloc(sizeof(*prev));

		*prev = main_thread;
		start(&joinable, chain, prev);
	}
	for (int i = 0; i < RELAYS; i++)
		start(&detached, relay, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
