/*
 * gdb: the gdb packet handlers, one file per packet family.
 *
 * A gdb_session is one RSP client talking to (at most) one engine. Handlers
 * get the packet payload, parse it, act through the engine API and write
 * their reply into s->reply; the dispatcher frames it. Nothing here calls
 * ptrace or touches sockets: the endpoint feeds bytes in and drains
 * s->rsp.out.
 */
#ifndef UTRACED_GDB_H
#define UTRACED_GDB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../engine/engine.h"
#include "../rsp/rsp.h"
#include "../util/buf.h"
#include "../util/procfs.h"

struct gdb_server; /* daemon-wide options, shared by sessions (main.c) */
struct gdb_catch;
struct gdb_cond;
struct gdb_nsq;
struct gdb_run;
struct gdb_vfile;
struct gdb_xfer;
struct tp_exp;

#define GDB_CATCH_MAX 512 /* syscall numbers in one QCatchSyscalls list */
#define GDB_MAX_PROCS 16  /* processes one session debugs (fork children) */

/*
 * Where glibc's TLS descriptors (its _thread_db_* symbols) are in one
 * process, as gdb answered our qSymbol questions (gdb_tls.c).
 */
#define GDB_TLS_NSYMS 6
struct gdb_tls {
	uint64_t addr[GDB_TLS_NSYMS];
	unsigned known;	 /* bit i: addr[i] is gdb's answer */
	unsigned absent; /* bit i: gdb knew the anchor but not this one: ask no more */
	unsigned asked;	 /* bit i: asked in the current qSymbol conversation */
};

/* One process of a session (gdb_procs.c). */
struct gdb_proc {
	struct engine *e;
	struct gdb_tls tls; /* per process: another program has other symbols */
	bool quiet;	    /* interrupted because another process stopped */
	size_t ndeferred;   /* resumed by gdb before that interrupt arrived */
	struct engine_resume deferred[8];
};

struct gdb_session {
	struct rsp_conn rsp;
	struct buf reply;		      /* payload of the reply being built */
	struct engine *engine;		      /* the selected process (Hg); NULL when none */
	struct gdb_proc procs[GDB_MAX_PROCS]; /* every process of this session */
	size_t nprocs;
	struct engine_stop pend[GDB_MAX_PROCS]; /* stops gdb has not heard yet */
	size_t npend;
	unsigned events;	   /* ENGINE_EVENT_* gdb asked for in qSupported */
	bool nonstop;		   /* QNonStop:1 */
	struct gdb_resume *resume; /* the last resume, to go on without gdb (gdb_resume.c) */
	struct gdb_cond *conds;	   /* breakpoint conditions (gdb_cond.c) */
	size_t nconds;
	struct gdb_nsq *nsq; /* non-stop stops gdb has not drained (gdb_nonstop.c) */
	struct tracer *tracer;
	struct gdb_server *server;
	bool extended;		   /* '!' received */
	bool waiting;		   /* a resume is in flight; the stop reply is owed */
	bool freeing;		   /* gdb_session_free: nothing more goes to the client */
	unsigned long o_bytes;	   /* agent-style dprintf text sent in "O" packets */
	bool o_off;		   /* monitor utraced dprintf-to server: none sent */
	struct engine *attaching;  /* an attach in flight, its stop not come (gdb_attach.c) */
	bool attach_replies;	   /* ... a vAttach's: its reply is owed */
	bool held;		   /* ... a joiner's packet waits for it (gdb_session.c) */
	struct buf held_pkt;	   /* ... that packet */
	struct buf held_input;	   /* ... and the bytes that came after it */
	long long attach_alive_at; /* ... when its client hears from us next (gdb_attach.c) */
	pid_t attach_noregs; /* non-stop attach: its stops go without registers (gdb_attach.c) */
	bool closing;	     /* the endpoint should close after flushing */
	bool detached;	     /* 'D' succeeded */
	bool killed;	     /* 'k' or vKill took the process */
	bool noack_pending;  /* QStartNoAckMode: stop acking after this reply */
	bool multiprocess;   /* both sides said multiprocess+: pPID.TID ids */
	bool secondary;	     /* joined a held process: no progress lines, no exit policy */
	size_t thread_iter;  /* qsThreadInfo position */
	pid_t g_tid;	     /* Hg thread (0 = any) */
	pid_t c_tid;	     /* Hc thread (0/-1 = any/all) */
	struct engine_stop last; /* last stop reported (for '?') */
	bool have_last;
	struct gdb_sigs *sigs;	 /* QPassSignals, QProgramSignals (gdb_query.c); NULL: none */
	struct gdb_catch *catch; /* QCatchSyscalls (gdb_query.c); NULL: none caught */
	struct gdb_xfer *xfer;	 /* the qXfer object gdb reads in chunks (gdb_xfer.c) */
	struct gdb_vfile *vfile; /* vFile: open files, setfs (gdb_vfile.c) */
	struct engine_client client;
	bool peer_known;	 /* peer is the client (unix socket, FUSE) */
	struct proc_caller peer; /* its ids and capabilities, taken when it came */
	struct gdb_run *run;	 /* how the next vRun or 'R' starts a program (gdb_extended.c) */
	struct gdb_trace *trace; /* Qutraced.trace: a streamed syscall trace (gdb_trace.c) */
	struct tp_exp *tp;	 /* tracepoints: this gdb's experiment (gdb_tp.c) */
	long tframe;		 /* QTFrame: the trace frame gdb looks at, -1: none */
};

/*
 * A packet handler: payload is the whole packet (NUL-terminated; len
 * excludes the NUL). Returns 0 when s->reply holds the reply (empty = "not
 * supported"), GDB_NO_REPLY when the reply comes later (resume) or never,
 * or -errno to have the dispatcher reply "E.errno-text"/"Enn".
 */
#define GDB_NO_REPLY 1
typedef int (*gdb_handler_fn)(struct gdb_session *s, const char *payload, size_t len);

enum gdb_match {
	GDB_EXACT,  /* the whole payload equals the name */
	GDB_PREFIX, /* payload starts with the name */
	GDB_PARAM,  /* name, then end of packet or one of ":;," */
};

struct gdb_packet {
	const char *name;
	enum gdb_match match;
	gdb_handler_fn fn;
	bool needs_engine;   /* reply E with no process */
	const char *feature; /* advertised in qSupported, or NULL */
	unsigned disable;    /* GDB_DISABLE_* bit that turns it off (--disable-packet) */
};

/* The table of all packets (gdb_dispatch.c) and its lookup. */
extern const struct gdb_packet gdb_packets[];
extern const size_t gdb_npackets;
const struct gdb_packet *gdb_packet_find(const char *payload, size_t len);

void gdb_session_init(struct gdb_session *s, struct tracer *t, struct gdb_server *srv);
/*
 * A session of a client that joins a process someone holds (rendezvous
 * socket, a pty of --mount): no progress lines, no exit policy, its
 * engine named how, the client's credentials known. Nothing attached yet.
 */
void gdb_session_init_joined(struct gdb_session *s, struct tracer *t, struct gdb_server *srv,
			     const char *how, const struct proc_caller *peer);
void gdb_session_free(struct gdb_session *s); /* detaches the engine */
/* Bytes from the client; replies accumulate in s->rsp.out. */
void gdb_session_input(struct gdb_session *s, const uint8_t *data, size_t len);
/* Attach the session to an engine (made by main for launch/--attach). */
void gdb_session_set_engine(struct gdb_session *s, struct engine *e);
/*
 * A client that joined a process (engine_attach_start()): its engine,
 * perhaps still attaching; '?' is answered once the process has stopped.
 */
void gdb_session_join(struct gdb_session *s, struct engine *e);
/*
 * An attach of s in flight, called from the loop: a non-stop one that
 * has waited long enough is answered with the threads that have stopped;
 * an answer still owed sends the client a keep-alive byte now and then
 * (into s->rsp.out). Returns ms until it should be called again, or -1
 * when no attach is in flight.
 */
int gdb_attach_expire(struct gdb_session *s);
/* The client leaves: an attach of its own still in flight goes too (gdb_attach.c). */
void gdb_attach_drop(struct gdb_session *s);
/* The same for a ustrace's Qutraced.trace (its observer's attach): E6e then. */
int gdb_trace_join_expire(struct gdb_session *s);
/* ... and whether one is in flight. */
bool gdb_trace_joining(const struct gdb_session *s);
/*
 * The client's credentials, when the endpoint knows them: a client that is
 * neither root nor our own user may then not start or attach programs as
 * us, and its vFile accesses are checked as its own.
 */
void gdb_session_set_peer(struct gdb_session *s, const struct proc_caller *peer);
/* A client that is neither root nor utraced's own user. */
bool gdb_session_foreign(const struct gdb_session *s);
/* Leave every process of the session (killing them if kill); s->engine becomes NULL. */
void gdb_session_leave(struct gdb_session *s, bool kill);

/*
 * Trace sessions (gdb_trace.c). The endpoint calls gdb_trace_pump() before
 * and after writing s->rsp.out: streamed text becomes packets, and threads
 * held while the client was behind go on once it caught up. Leaving every
 * process ends the trace (gdb_trace_end(), from gdb_session_leave()).
 */
void gdb_trace_pump(struct gdb_session *s);
void gdb_trace_end(struct gdb_session *s);

/*
 * Tracepoint runs that ended inside a hit (pass count, full buffer): their
 * engines leave now (gdb_tp.c). The event loop calls it at each turn.
 */
void gdb_tp_settle_all(void);
/*
 * End every experiment, those left running by a gdb that has gone among
 * them, their engines detached: for an end of the tracer (a fuzz world's,
 * fuzz/fuzz_world.c), after which no engine of theirs may be used.
 */
void gdb_tp_free_all(void);

/* Stop replies (gdb_stop.c): format st as T/S/W/X into b. */
void gdb_stop_reply(struct gdb_session *s, const struct engine_stop *st, struct buf *b);

/* Signal numbers (gdb_signals.c): host <-> gdb's enum gdb_signal. 0 if unknown. */
int gdb_signal_from_host(int sig);
int gdb_signal_to_host(int gsig);

#endif
