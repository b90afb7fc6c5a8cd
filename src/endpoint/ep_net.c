/*
 * ep_net.c: listening and accepting sockets.
 *
 * ":PORT" listens on loopback only (127.0.0.1 and ::1, same port), unlike
 * gdbserver which silently listens on every interface: a debugger port is
 * remote code execution for whoever reaches it. Listening on all
 * interfaces takes an explicit "0.0.0.0:PORT" or "[::]:PORT".
 */
#include "ep.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int listen_addr(const struct sockaddr *sa, socklen_t len)
{
	int one = 1, fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, sa, len) < 0 || listen(fd, 8) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* ":PORT": 127.0.0.1, then ::1 on the same port if the host has IPv6. */
static int listen_loopback(int port, struct ep_listen *l)
{
	struct sockaddr_in in4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	int fd;

	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = listen_addr((struct sockaddr *)&in4, sizeof(in4));
	if (fd < 0)
		return fd;
	l->fds[l->nfds++] = fd;
	l->port = bound_port(fd);
	in6.sin6_port = htons((uint16_t)l->port);
	fd = listen_addr((struct sockaddr *)&in6, sizeof(in6));
	if (fd >= 0)
		l->fds[l->nfds++] = fd;
	return 0;
}

static int listen_host(const char *host, const char *port, int family, struct ep_listen *l,
		       char *msg, size_t msglen)
{
	struct addrinfo hints = {
		.ai_family = family, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct addrinfo *res;
	int fd, err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		snprintf(msg, msglen, "%s: cannot resolve name: %s", host, gai_strerror(err));
		return -EADDRNOTAVAIL;
	}
	fd = listen_addr(res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (fd < 0)
		return fd;
	l->fds[l->nfds++] = fd;
	l->port = bound_port(fd);
	return 0;
}

static int listen_unix(const char *path, struct ep_listen *l)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(un.sun_path))
		return -ENAMETOOLONG;
	strcpy(un.sun_path, path);
	/* a socket left by a dead server is replaced; any other file is not ours */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	fd = listen_addr((struct sockaddr *)&un, sizeof(un));
	if (fd < 0)
		return fd;
	chmod(path, 0600);
	l->fds[l->nfds++] = fd;
	snprintf(l->path, sizeof(l->path), "%s", path);
	return 0;
}

/* gdb's "tcp:", "tcp4:", "udp6:"... prefixes (we always serve TCP, as gdbserver). */
static const char *strip_prefix(const char *comm, int *family)
{
	static const struct {
		const char *prefix;
		int family;
	} prefixes[] = {
		{"tcp:", AF_UNSPEC}, {"tcp4:", AF_INET}, {"tcp6:", AF_INET6},
		{"udp:", AF_UNSPEC}, {"udp4:", AF_INET}, {"udp6:", AF_INET6},
	};

	*family = AF_UNSPEC;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i].prefix);

		if (!strncmp(comm, prefixes[i].prefix, n)) {
			*family = prefixes[i].family;
			return comm + n;
		}
	}
	return comm;
}

int ep_listen(const char *comm, struct ep_listen *l, char *err, size_t errlen)
{
	char host[256];
	const char *colon;
	int ret, family;

	memset(l, 0, sizeof(*l));
	err[0] = '\0';
	comm = strip_prefix(comm, &family);
	if (!strncmp(comm, "unix:", 5) || strchr(comm, '/')) {
		ret = listen_unix(comm + (strncmp(comm, "unix:", 5) ? 0 : 5), l);
	} else {
		colon = strrchr(comm, ':');
		if (!colon || (size_t)(colon - comm) >= sizeof(host)) {
			snprintf(err, errlen, "Bad port argument: %s", comm);
			return -EINVAL;
		}
		memcpy(host, comm, (size_t)(colon - comm));
		host[colon - comm] = '\0';
		if (host[0] == '[' && host[strlen(host) - 1] == ']') {
			memmove(host, host + 1, strlen(host));
			host[strlen(host) - 1] = '\0';
		}
		if (!host[0])
			ret = listen_loopback(atoi(colon + 1), l);
		else
			ret = listen_host(host, colon + 1, family, l, err, errlen);
	}
	if (ret == -EADDRINUSE)
		snprintf(err, errlen, "Can't bind address: Address already in use.");
	else if (ret < 0 && !err[0])
		snprintf(err, errlen, "Can't listen on %s: %s", comm, strerror(-ret));
	return ret;
}

void ep_listen_close(struct ep_listen *l)
{
	for (int i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	if (l->path[0])
		unlink(l->path);
	l->nfds = 0;
}

int ep_accept(int fd, char *peer, size_t peerlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "local";
	int one = 1, c;

	c = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c < 0)
		return -errno;
	snprintf(peer, peerlen, "local socket");
	if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
		const void *a = ss.ss_family == AF_INET
					? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
					: (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;

		inet_ntop(ss.ss_family, a, host, sizeof(host));
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		snprintf(peer, peerlen, "%s, port %d", host,
			 ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						       : ((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	return c;
}
