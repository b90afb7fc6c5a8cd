/* signals: installs a SIGUSR1 handler, raises SIGUSR1 and reports
 * whether the handler ran, by output and by exit code:
 *   "handler ran" and exit 5, or "handler did not run" and exit 3. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t usr1_seen; /* set by the handler */

static void on_usr1(int sig)
{
	usr1_seen = sig; /* LINE:handler */
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0) {
		perror("sigaction");
		return 1;
	}
	kill(getpid(), SIGUSR1); /* LINE:raise */
	if (usr1_seen == SIGUSR1) {
		printf("handler ran\n");
		return 5;
	}
	printf("handler did not run\n");
	return 3;
}
