/*
 * endpoint: where RSP bytes come from and go to: TCP, unix sockets, stdio.
 *
 * ep_net.c makes and accepts sockets; server.c runs the event loop that
 * moves bytes between connections and gdb sessions and applies gdbserver's
 * rules for when to reopen the connection, detach or exit.
 */
#ifndef UTRACED_EP_H
#define UTRACED_EP_H

#include <sys/socket.h>
#include <stdbool.h>
#include <stddef.h>

#include "../gdb/gdb_int.h"
#include "../util/procfs.h"

#define EP_MAX_LISTEN 2

struct ep_listen {
	int fds[EP_MAX_LISTEN];
	int nfds;
	int port;	/* TCP port actually bound (0 for unix) */
	char path[108]; /* unix socket path, "" for TCP */
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

/*
 * Everything the event loop watches starts with one of these, so an epoll
 * event leads straight to its object.
 */
enum ep_kind {
	EP_LISTEN,     /* the COMM listening socket */
	EP_CONN,       /* a client connection */
	EP_RENDEZVOUS, /* RUNDIR/<pid>.sock */
	EP_TRACER,
	EP_SIGNAL,
	EP_FUSE, /* the /dev/fuse connection of --mount (ep_fuse.c) */
	EP_PTY,	 /* a pty behind DIR/<pid>/gdb, before its first byte (ep_pty.c) */
};

struct ep_item {
	enum ep_kind kind;
	int fd;
};

/* A client connection and the gdb session it talks to (ep_conn.c). */
struct ep_conn {
	struct ep_item in; /* read side (kind EP_CONN) */
	struct ep_conn *next;
	int wfd;       /* write side: same fd for sockets, 1 for stdio */
	bool want_out; /* EPOLLOUT armed */
	bool primary;  /* the COMM client: gdbserver's rules apply */
	bool dead;     /* read EOF or error: close after this round */
	bool linger;   /* closed only by the client (a pty: closing drops its input) */
	struct gdb_session *s;
};

int ep_watch(int epfd, struct ep_item *item, uint32_t events);
struct ep_conn *ep_conn_new(int epfd, int rfd, int wfd, struct gdb_session *s, bool primary);
/* Close the fds (not stdio's) and free c; the session is the caller's. */
void ep_conn_close(int epfd, struct ep_conn *c);
/* Read what is there into the session; sets c->dead at EOF or error. */
void ep_conn_read(struct ep_conn *c);
/* Write what the session queued; arm EPOLLOUT for the rest. */
void ep_conn_flush(int epfd, struct ep_conn *c);

/* A client of a process: the process to debug, and who the client is. */
struct ep_client {
	pid_t pid; /* the process to debug */
	struct proc_caller caller;
};

/*
 * Rendezvous sockets (ep_rendezvous.c): RUNDIR/<pid>.sock for every
 * process the tracer holds, so another client can join it as an engine.
 */
struct ep_rendezvous;
/* RUNDIR for our euid (util/rundir.c), made if missing. */
int ep_rundir(char *out, size_t len);
/* Make the sockets match the traced processes (create new, remove gone). */
void ep_rendezvous_sync(struct ep_rendezvous **list, int epfd, struct tracer *t);
void ep_rendezvous_free(struct ep_rendezvous **list, int epfd);
/* Accept a joiner of item's process: 0 with its fd and who, or -errno (refused peers too). */
int ep_rendezvous_accept(struct ep_item *item, int *fd, struct ep_client *who);

/*
 * The ptys behind DIR/<pid>/gdb (ep_pty.c): one per client that resolves
 * the link, its slave the client's; the first byte written to it makes it
 * a connection to a gdb session on the process.
 */
struct ep_ptys;
struct ep_ptys *ep_ptys_new(int epfd);
void ep_ptys_free(struct ep_ptys *p);
/*
 * The slave's path (/dev/pts/N) into path for who, asking from thread tid:
 * the pty this thread got for this process and nobody opened yet, or a new
 * one. 0 or -errno (-EAGAIN: that user has too many).
 */
int ep_ptys_offer(struct ep_ptys *p, const struct ep_client *who, pid_t tid, char *path,
		  size_t len);
/*
 * An event on item (a pty's master): true when the client wrote to it,
 * with who it is for and the master, which is the caller's from then on
 * (ep_ptys_ended() when it closes it). A pty closed without a byte goes.
 */
bool ep_ptys_take(struct ep_ptys *p, struct ep_item *item, struct ep_client *who, int *master);
/* A session that ep_ptys_take() started for uid has ended. */
void ep_ptys_ended(struct ep_ptys *p, uid_t uid);
/* Drop the ptys nobody opened in time; ms until the next is due, or -1. */
int ep_ptys_expire(struct ep_ptys *p);

/*
 * The FUSE tree (ep_fuse.c): DIR/<pid>/gdb, a symlink to a pty of ptys,
 * and DIR/<pid>/engines, served from this event loop.
 */
struct ep_fuse;
/* Mount on dir (made if missing, a stale mount replaced); NULL after a message. */
struct ep_fuse *ep_fuse_open(const char *dir, struct tracer *t, struct ep_ptys *ptys, int epfd);
/* Its fd is readable: handle the requests; false when the mount went away. */
bool ep_fuse_read(struct ep_fuse *fs);
/* Unmount. NULL is fine. */
void ep_fuse_close(struct ep_fuse *fs, int epfd);

/* What the daemon does: the options main.c parsed. */
struct ep_config {
	struct gdb_server srv;
	const char *comm;
	char **argv;	   /* program to launch, or NULL */
	int attach_pid;	   /* --attach PID, or 0 */
	const char *mount; /* --mount DIR: serve DIR/<pid>/gdb, or NULL */
	bool in_place;	   /* --step-over=in-place */
	bool no_agent;	   /* --agent=off */
};

/* Run the daemon; returns the process exit code. */
int ep_server_run(struct ep_config *cfg);

#endif
