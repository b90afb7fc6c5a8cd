/* signal_held: the main thread waits in pthread_join() (a futex wait) while
 * a second thread calls stop_here(). A debugger stopped there can give a
 * signal to the main thread, held in its syscall at an interrupt stop.
 * Handlers for SIGUSR1 and SIGTRAP record the signal and whether the
 * main thread ran them; main prints "SIGNAME in main" for each, or
 * "SIGNAME in another thread", then exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_main, trap_main, usr1_other, trap_other;

void on_signal(int sig)
{
	int main_thread = gettid() == getpid(); /* LINE:handler */

	if (sig == SIGUSR1)
		*(main_thread ? &usr1_main : &usr1_other) = 1;
	else
		*(main_thread ? &trap_main : &trap_other) = 1;
}

__attribute__((noinline)) void stop_here(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *run(void *arg)
{
	(void)arg;
	stop_here();
	return NULL;
}

int main(void)
{
	pthread_t t;

	signal(SIGUSR1, on_signal);
	signal(SIGTRAP, on_signal);
	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, NULL);
	if (usr1_main || usr1_other)
		printf("SIGUSR1 in %s\n", usr1_main ? "main" : "another thread");
	if (trap_main || trap_other)
		printf("SIGTRAP in %s\n", trap_main ? "main" : "another thread");
	return 0;
}
