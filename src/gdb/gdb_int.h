/*
 * gdb_int.h: helpers shared by the packet handler files, and the daemon
 * options they consult (struct gdb_server, filled in by main.c).
 */
#ifndef UTRACED_GDB_INT_H
#define UTRACED_GDB_INT_H

#include "gdb.h"
#include "gdb_handlers.h"

/* gdbserver's --disable-packet=..., for GDB's testsuite */
#define GDB_DISABLE_VCONT	 1u
#define GDB_DISABLE_TTHREAD	 2u
#define GDB_DISABLE_QC		 4u
#define GDB_DISABLE_QFTHREADINFO 8u
#define GDB_DISABLE_T		 16u

struct gdb_server {
	unsigned disabled;	 /* GDB_DISABLE_* */
	bool debug;		 /* --debug, monitor set debug */
	bool exit_requested;	 /* monitor exit */
	bool multi;		 /* --multi: extended-remote, lives on without a process */
	bool once;		 /* --once: serve one client, then exit */
	bool remote_debug;	 /* --remote-debug: packet log on stderr */
	bool stdio;		 /* RSP on our stdin/stdout */
	const char *program;	 /* PROG from the command line (vRun's default) */
	char *last_program;	 /* the last program vRun started (then the default) */
	char **wrapper;		 /* --wrapper words, or NULL */
	bool startup_with_shell; /* --[no-]startup-with-shell */
	/* Called when the process exits or is killed (progress line, exit policy). */
	void (*on_exit)(struct gdb_session *s, const struct engine_stop *st);
	/* Called after a successful detach. */
	void (*on_detach)(struct gdb_session *s, pid_t pid);
};

/*
 * Thread ids: "TID", "pPID.TID", "pPID", "-1", "0". On success *pid and *tid
 * get the values (-1 = all, 0 = any; pid 0 when not given) and *pp moves past.
 */
int gdb_parse_tid(const char **pp, const char *end, pid_t *pid, pid_t *tid);
/* Append a thread id in the session's format (multiprocess or not). */
void gdb_put_tid(struct gdb_session *s, struct buf *b, pid_t tid);
/* The thread registers/memory ops apply to (Hg, else the last stop's thread). */
pid_t gdb_current_tid(struct gdb_session *s);

/* Parse "ADDR,LEN" (hex) up to end or the given terminator; -EINVAL if malformed. */
int gdb_parse_addr_len(const char **pp, const char *end, uint64_t *addr, uint64_t *len);

/* qXfer reply: slice [off, off+len) of an object into s->reply as m/l. */
void gdb_xfer_slice(struct gdb_session *s, const char *obj, size_t objlen, uint64_t off,
		    uint64_t len);

/* qSupported features derived from the packet table (gdb_dispatch.c). */
void gdb_put_features(struct gdb_session *s, struct buf *b);
bool gdb_packet_disabled(const struct gdb_session *s, const struct gdb_packet *gp);

/* The last resume, kept to go on without gdb (gdb_resume.c). */
void gdb_resume_init(struct gdb_session *s);
void gdb_resume_free(struct gdb_session *s);
bool gdb_resume_range_goes_on(struct gdb_session *s, const struct engine_stop *st);
bool gdb_resume_again(struct gdb_session *s);
void gdb_resume_range_end(struct gdb_session *s);

/* Extended remote (gdb_extended.c). */
void gdb_extended_init(struct gdb_session *s);
void gdb_extended_free(struct gdb_session *s);
/* Launch prog[] as this session's settings say (shell, wrapper, env, cwd, ASLR). */
struct engine *gdb_launch(struct gdb_session *s, char *const prog[], struct engine_launch_err *why);
int gdb_handle_vrun(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vattach(struct gdb_session *s, const char *p, size_t len);
/* gdb_extended.c: take e as the session's process; its stop reply in s->reply */
void gdb_adopt(struct gdb_session *s, struct engine *e);
/* gdb_session.c: send s->reply outside a packet's handling (a stop, an attach's end) */
void gdb_send_late_reply(struct gdb_session *s, const char *why);
/* gdb_attach.c: the stop an attach waited for (true: consumed here) */
bool gdb_attach_stop(struct gdb_session *s, const struct engine_stop *st);
bool gdb_attach_interrupt(struct gdb_session *s); /* a ^C: true if it gave up an attach */
/* gdb_session.c: the packets held for a joiner's attach stop, served now */
void gdb_session_release_held(struct gdb_session *s);
int gdb_handle_restart(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_extended(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_run_setting(struct gdb_session *s, const char *p, size_t len);

/* Kill the session's process, if any, and drop its engine (gdb_detach.c). */
int gdb_kill_process(struct gdb_session *s);

/* Packet handlers, by file. See the table in gdb_dispatch.c. */
int gdb_handle_qsupported(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_noack(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_pass_signals(struct gdb_session *s, const char *p, size_t len);
/* gdb_cond.c */
int gdb_cond_set(struct gdb_session *s, pid_t pid, int type, uint64_t addr, const char *tail,
		 size_t len);
void gdb_cond_clear(struct gdb_session *s, pid_t pid, int type, uint64_t addr);
void gdb_cond_free_all(struct gdb_session *s);
bool gdb_cond_false(struct gdb_session *s, const struct engine_stop *st);
/* The software breakpoint's conditions handed to the engine's in-process agent. */
void gdb_cond_to_engine(struct gdb_session *s, pid_t pid, uint64_t addr);
/* A printf the in-process agent recorded: printed as if run here. */
void gdb_cond_printed(struct gdb_session *s, struct engine *e, const struct agent_record *r);
/* Has s more O packets queued than it holds before the program waits? */
bool gdb_cond_out_busy(const struct gdb_session *s);
/* s goes: its lines still batched are written out first. */
void gdb_cond_session_gone(struct gdb_session *s);

/* gdb_nonstop.c */
void gdb_nonstop_on_stop(struct gdb_session *s, const struct engine_stop *st);
int gdb_nonstop_question(struct gdb_session *s);
void gdb_nonstop_free(struct gdb_session *s);
/* The stops gdb has not drained with vStopped yet, oldest first: how many, and *stops. */
size_t gdb_nonstop_pending(const struct gdb_session *s, const struct engine_stop **stops);
int gdb_handle_qnonstop(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vstopped(struct gdb_session *s, const char *p, size_t len);

/* gdb_procs.c */
struct gdb_proc *gdb_proc_of(struct gdb_session *s, pid_t pid);
int gdb_proc_add(struct gdb_session *s, struct engine *e);
void gdb_proc_remove(struct gdb_session *s, struct engine *e);
void gdb_proc_detach(struct gdb_session *s, struct engine *e);
bool gdb_procs_take_pending(struct gdb_session *s, struct engine_stop *st);
bool gdb_procs_death_pending(struct gdb_session *s, pid_t pid);
size_t gdb_proc_threads(struct gdb_session *s, struct engine *e, pid_t **out);
void gdb_select_stopped(struct gdb_session *s, const struct engine_stop *st);
bool gdb_procs_on_stop(struct gdb_session *s, const struct engine_stop *st);
int gdb_procs_resume(struct gdb_session *s, const struct engine_resume *acts, const pid_t *pids,
		     size_t n);
void gdb_put_ptid(struct gdb_session *s, struct buf *b, pid_t pid, pid_t tid);
/* Does the stop name a live thread (not an exit, a thread exit or no-resumed)? */
bool gdb_stop_has_thread(const struct engine_stop *st);

/* gdb_tls.c: qSymbol and qGetTLSAddr; forget a process's symbols when it exec'd */
int gdb_handle_qgettlsaddr(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qsymbol(struct gdb_session *s, const char *p, size_t len);
void gdb_tls_forget(struct gdb_proc *pr);

int gdb_handle_catch_syscalls(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_thread_events(struct gdb_session *s, const char *p, size_t len);
/* The session's QCatchSyscalls list to its engine; and, when the session ends, away. */
void gdb_apply_catch(struct gdb_session *s);
void gdb_catch_free(struct gdb_session *s);
/* The session's QPassSignals list given to e; its QProgramSignals list, at e's detach. */
void gdb_apply_pass_signals(struct gdb_session *s, struct engine *e);
void gdb_keep_program_signals(struct gdb_session *s, struct engine *e);
void gdb_sigs_free(struct gdb_session *s);
int gdb_handle_program_signals(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qattached(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qrcmd(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_qfthreadinfo(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qsthreadinfo(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qc(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_h(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_t(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_xfer(struct gdb_session *s, const char *p, size_t len);
void gdb_xfer_free(struct gdb_session *s);
int gdb_handle_xfer_write(struct gdb_session *s, const char *p, size_t len);
/* `info os`: the qXfer:osdata:read document for annex into out (gdb_osdata.c). */
int gdb_osdata_xml(const char *annex, struct buf *out);

int gdb_handle_g(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_G(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_p(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_P(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_m(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_M(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_X(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_z(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_question(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vcont_query(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vcont(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vctrlc(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_c(struct gdb_session *s, const char *p, size_t len);

int gdb_handle_detach(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_kill(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_vkill(struct gdb_session *s, const char *p, size_t len);

/* gdb_trace.c: Qutraced.trace, a syscall trace streamed to the client */
int gdb_handle_utraced_trace(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_utraced_detach(struct gdb_session *s, const char *p, size_t len);

/* gdb_tp*.c: tracepoints */
void gdb_tp_session_gone(struct gdb_session *s);
int gdb_handle_tp(struct gdb_session *s, const char *p, size_t len);
int gdb_handle_qtstatus(struct gdb_session *s, const char *p, size_t len);
/* Reads while a trace frame is selected: 1 when answered from the frame (or refused). */
int gdb_tp_read_mem(struct gdb_session *s, uint64_t addr, uint8_t *out, size_t n, size_t *got);
int gdb_tp_regs(struct gdb_session *s, int regno);
int gdb_tp_frame_info(struct gdb_session *s, struct buf *b);

#endif
