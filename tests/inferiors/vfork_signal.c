/*
 * A program that is nearly always stopped in the kernel with a signal
 * queued on it: each vfork child sends SIGUSR1 to its parent's thread,
 * then sleeps before it exits. The parent, waiting for the child, cannot
 * take the signal until the child is gone. Attaching to it shows whether
 * a debugger reports the signal already queued (as gdbserver does: its
 * attach SIGSTOP queues behind SIGUSR1).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
}

int main(void)
{
	pid_t self = getpid();

	signal(SIGUSR1, on_usr1);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (vfork() == 0) {
			syscall(SYS_tgkill, self, self, SIGUSR1);
			usleep(300 * 1000);
			_exit(0);
		}
	}
}
