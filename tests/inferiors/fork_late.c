/* fork_late GOFILE: forks a child whose first instruction comes late. The
 * process is pinned to one CPU; once GOFILE exists, a hog thread spins
 * there for 1.5 s at SCHED_FIFO priority 1 while the main thread, at
 * priority 2 with SCHED_RESET_ON_FORK, forks: the child (SCHED_OTHER)
 * waits for the hog, and so does its first ptrace stop. The child calls
 * child_work() (a trap of a debugger left in it would kill it) and exits
 * 0. The parent prints "child ran after N ms" (from fork() to the child's
 * end) or what went wrong, and exits 0 if the child did. Prints "no rt"
 * and exits 3 when it may not use SCHED_FIFO (not root). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOG_MS 1500

static volatile int go;
static volatile long calls;

__attribute__((noinline)) void child_work(void)
{
	calls++;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *hog(void *arg)
{
	struct sched_param sp = {.sched_priority = 1};
	long end;

	(void)arg;
	while (!go)
		usleep(1000);
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	end = now_ms() + HOG_MS;
	while (now_ms() < end)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = {.sched_priority = 2};
	cpu_set_t one;
	pthread_t t;
	long start;
	int status;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (argc < 2 || sched_setaffinity(0, sizeof(one), &one) < 0)
		return 2;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		return printf("no rt\n"), 3;
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp); /* (until the fork) */
	pthread_create(&t, NULL, hog, NULL);
	printf("ready\n");
	while (access(argv[1], F_OK) != 0)
		usleep(10000);
	sp.sched_priority = 2;
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	go = 1;
	usleep(50000); /* the hog spins now */
	start = now_ms();
	pid = fork();
	if (pid == 0) {
		child_work();
		_exit(calls == 1 ? 0 : 1);
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return printf("fork failed\n"), 1;
	pthread_join(t, NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return printf("child died (status 0x%x)\n", status), 1;
	printf("child ran after %ld ms\n", now_ms() - start);
	return 0;
}
