/*
 * A program that is nearly always stopped in the kernel with a signal
 * queued on it: each vfork child sends SIGUSR1 to its parent's thread,
 * then sleeps before it exits. The parent, waiting for the child, cannot
 * take the signal until the child is gone. Attaching to it shows whether
 * a debugger reports the signal already queued (as gdbserver does: its
 * attach SIGSTOP queues behind SIGUSR1). With an argument, a second
 * thread does the same, so that an attach meets two such signals.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count;
static pid_t self;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
}

static void *vfork_loop(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	for (;;) {
		if (vfork() == 0) {
			syscall(SYS_tgkill, self, tid, SIGUSR1);
			usleep(300 * 1000);
			_exit(0);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	self = getpid();
	signal(SIGUSR1, on_usr1);
	if (argc > 1)
		pthread_create(&t, NULL, vfork_loop, NULL);
	printf("ready\n");
	fflush(stdout);
	vfork_loop(NULL);
}
