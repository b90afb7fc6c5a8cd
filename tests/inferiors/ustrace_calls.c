/*
 * ustrace_calls: makes the syscalls of one family, for tests/e2e/ustrace_*.t,
 * which run it under strace and under ustrace and compare the two traces.
 *
 *   ustrace_calls files|mem|net|signals|poll|proc|threads|block
 *
 * Every call is deterministic (no addresses or times in what is compared
 * beyond what the test normalises); scratch files go under $TMPDIR or /tmp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256];

static void path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void files(void)
{
	char a[300], b[300], buf[64];
	struct stat st;
	int fd, fd2;

	path(a, sizeof(a), "a");
	path(b, sizeof(b), "b");
	fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "hello\tworld\n\001\002", 14);
	pwrite(fd, "XY", 2, 3);
	close(fd);
	fd = openat(AT_FDCWD, a, O_RDONLY | O_CLOEXEC);
	read(fd, buf, sizeof(buf));
	pread(fd, buf, 4, 2);
	lseek(fd, 1, SEEK_SET);
	fstat(fd, &st);
	fd2 = dup(fd);
	dup2(fd, 10);
	dup3(fd, 11, O_CLOEXEC);
	fcntl(fd, F_GETFD);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_GETFL);
	fcntl(fd, F_DUPFD_CLOEXEC, 20);
	close(fd2);
	close(10);
	close(11);
	close(20);
	close(fd);
	stat(a, &st);
	lstat("/nonexistent/x", &st);
	access(a, R_OK | W_OK);
	access("/nonexistent", F_OK);
	faccessat(AT_FDCWD, a, X_OK, 0);
	rename(a, b);
	symlink(b, a);
	readlink(a, buf, sizeof(buf));
	unlink(a);
	unlinkat(AT_FDCWD, b, 0);
	path(a, sizeof(a), "d");
	mkdir(a, 0750);
	fd = open(a, O_RDONLY | O_DIRECTORY);
	syscall(SYS_getdents64, fd, buf, sizeof(buf));
	close(fd);
	rmdir(a);
	open("/nonexistent", O_RDONLY);
}

static void mem(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	mprotect(p, 4096, PROT_READ);
	madvise(p, 8192, MADV_DONTNEED);
	munmap(p, 8192);
	mmap(NULL, 4096, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	munmap((void *)4096, 4096);
	syscall(SYS_brk, 0);
}

/* sendmsg/recvmsg: iovecs, an fd passed (SCM_RIGHTS), credentials, an address. */
static void msgs(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) * 2];
		struct cmsghdr align;
	} ctl;
	char a[] = "hello", b[] = " world", r1[4], r2[32];
	struct iovec iov[2] = {{a, 5}, {b, 6}}, riov[2] = {{r1, 4}, {r2, 32}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = ctl.buf};
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_storage from;
	struct cmsghdr *cm;
	socklen_t len = sizeof(sin);
	int sv[2], fd = 1, on = 1, u;

	memset(&ctl, 0, sizeof(ctl));
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	m.msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	sendmsg(sv[0], &m, MSG_DONTWAIT);
	m = (struct msghdr){.msg_iov = riov, .msg_iovlen = 2, .msg_control = ctl.buf};
	m.msg_controllen = sizeof(ctl.buf);
	recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC);
	close(5);
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	m = (struct msghdr){.msg_iov = iov, .msg_iovlen = 1};
	sendmsg(sv[0], &m, 0);
	m = (struct msghdr){.msg_iov = riov, .msg_iovlen = 2, .msg_control = ctl.buf};
	m.msg_controllen = sizeof(ctl.buf);
	recvmsg(sv[1], &m, 0);
	m = (struct msghdr){.msg_iov = riov, .msg_iovlen = 1};
	recvmsg(sv[1], &m, MSG_DONTWAIT); /* EAGAIN */
	m = (struct msghdr){.msg_iov = (struct iovec *)16, .msg_iovlen = 1};
	sendmsg(sv[0], &m, 0); /* EFAULT */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind(u, (struct sockaddr *)&sin, sizeof(sin));
	getsockname(u, (struct sockaddr *)&sin, &len);
	m = (struct msghdr){.msg_name = &sin, .msg_namelen = sizeof(sin), .msg_iov = iov};
	m.msg_iovlen = 2;
	sendmsg(u, &m, 0);
	m = (struct msghdr){.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = riov};
	m.msg_iovlen = 1;
	recvmsg(u, &m, MSG_PEEK); /* 4 of 11 bytes: MSG_TRUNC */
	close(u);
	close(sv[0]);
	close(sv[1]);
}

static void net(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	socklen_t len = sizeof(sin);
	int s, c, a, one = 1, type;
	char buf[32];

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	bind(s, (struct sockaddr *)&sin, sizeof(sin));
	listen(s, 5);
	getsockname(s, (struct sockaddr *)&sin, &len);
	c = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	connect(c, (struct sockaddr *)&sin, sizeof(sin));
	a = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	sendto(c, "ping", 4, 0, NULL, 0);
	recvfrom(a, buf, sizeof(buf), 0, NULL, NULL);
	len = sizeof(type);
	getsockopt(a, SOL_SOCKET, SO_TYPE, &type, &len);
	shutdown(c, SHUT_WR);
	close(a);
	close(c);
	close(s);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	strcpy(sun.sun_path, "/nonexistent/sock");
	connect(s, (struct sockaddr *)&sun, sizeof(sun));
	close(s);
	msgs();
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void signals(void)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigset_t set, old;

	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	kill(getpid(), SIGUSR1);
	syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
	signal(SIGUSR2, SIG_IGN);
}

static void polling(void)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	struct pollfd pfd[2];
	struct timeval tv = {0, 0};
	int p[2], ep, n;
	fd_set rd;

	pipe2(p, O_CLOEXEC);
	write(p[1], "x", 1);
	pfd[0] = (struct pollfd){.fd = p[0], .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = p[1], .events = POLLOUT};
	poll(pfd, 2, 0);
	pfd[1].events = 0;
	poll(pfd + 1, 1, 0);
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	select(p[0] + 1, &rd, NULL, NULL, &tv);
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	epoll_wait(ep, &ev, 1, 0);
	ioctl(p[0], FIONREAD, &n);
	ioctl(p[0], TCGETS, &n);
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void proc(void)
{
	char *argv[] = {"/nonexistent/prog", "arg", NULL};
	sigset_t chld;
	pid_t pid;
	int status;

	/* no SIGCHLD delivery: whether it comes before wait4 is a race */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid = fork();
	if (pid == 0)
		_exit(3);
	wait4(pid, &status, 0, NULL);
	execve(argv[0], argv, NULL);
	kill(pid, 0);
}

static void *thread_main(void *arg)
{
	(void)arg;
	write(1, "thread\n", 7);
	return NULL;
}

static void threads(void)
{
	pthread_t t;

	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
}

/* For -f: a vfork child, a fork child with a child of its own, a clone()d process. */
static int cloned(void *arg)
{
	(void)arg;
	write(1, "cloned\n", 7);
	return 7;
}

static void forks(void)
{
	static char stack[64 * 1024];
	sigset_t chld;
	pid_t pid, g;
	int status;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid = vfork();
	if (pid == 0)
		_exit(4);
	wait4(pid, &status, 0, NULL);
	pid = fork();
	if (pid == 0) {
		g = fork();
		if (g == 0) {
			write(1, "grandchild\n", 11);
			_exit(6);
		}
		wait4(g, &status, 0, NULL);
		_exit(5);
	}
	wait4(pid, &status, 0, NULL);
	/* no SIGCHLD at its exit: the kernel reports it as a clone, not a fork */
	pid = clone(cloned, stack + sizeof(stack), 0, NULL);
	waitpid(pid, &status, __WALL);
}

/* For -c: calls that sleep (wall time, no CPU) and calls that work in the kernel. */
static void cpu(void)
{
	static char big[1 << 22];
	struct timespec nap = {0, 20000000};
	int fd = open("/dev/urandom", O_RDONLY);

	for (int i = 0; i < 5; i++) {
		nanosleep(&nap, NULL);
		if (read(fd, big, sizeof(big)) < 0)
			break;
	}
	close(fd);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	const char *what = argc > 1 ? argv[1] : "";

	snprintf(dir, sizeof(dir), "%s", tmp ? tmp : "/tmp");
	if (!strcmp(what, "files"))
		files();
	else if (!strcmp(what, "mem"))
		mem();
	else if (!strcmp(what, "net"))
		net();
	else if (!strcmp(what, "signals"))
		signals();
	else if (!strcmp(what, "poll"))
		polling();
	else if (!strcmp(what, "proc"))
		proc();
	else if (!strcmp(what, "threads"))
		threads();
	else if (!strcmp(what, "cpu"))
		cpu();
	else if (!strcmp(what, "forks"))
		forks();
	else if (!strcmp(what, "block")) /* for -p: wait in read() until stdin ends */
		while (read(0, argv, 1) > 0)
			;
	else if (!strcmp(what, "segv"))
		*(volatile int *)8 = 1;
	return 0;
}
