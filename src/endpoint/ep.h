/*
 * endpoint: where RSP bytes come from and go to: TCP, unix sockets, stdio.
 *
 * ep_net.c makes and accepts sockets; server.c runs the event loop that
 * moves bytes between connections and gdb sessions and applies gdbserver's
 * rules for when to reopen the connection, detach or exit.
 */
#ifndef UTRACED_EP_H
#define UTRACED_EP_H

#include <stdbool.h>
#include <stddef.h>

#include "../gdb/gdb_int.h"

#define EP_MAX_LISTEN 2

struct ep_listen {
	int fds[EP_MAX_LISTEN];
	int nfds;
	int port;	  /* TCP port actually bound (0 for unix) */
	char path[108];	  /* unix socket path, "" for TCP */
};

/*
 * Listen on COMM: "[HOST]:PORT", "[::]:PORT", "unix:PATH" or a path with a
 * '/'. ":PORT" binds the loopback addresses only. Returns 0 or -errno, with
 * a message for the user in err.
 */
int ep_listen(const char *comm, struct ep_listen *l, char *err, size_t errlen);
void ep_listen_close(struct ep_listen *l);
/* Accept one client on fd (non-blocking, TCP_NODELAY); peer gets "host, port N". */
int ep_accept(int fd, char *peer, size_t peerlen);

/* What the daemon does: the options main.c parsed. */
struct ep_config {
	struct gdb_server srv;
	const char *comm;
	char **argv;	   /* program to launch, or NULL */
	int attach_pid;	   /* --attach PID, or 0 */
};

/* Run the daemon; returns the process exit code. */
int ep_server_run(struct ep_config *cfg);

#endif
