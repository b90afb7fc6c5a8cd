/*
 * gdb_tp.h: tracepoint experiments (gdb's trace/collect/tstart/tfind),
 * shared by gdb_tp.c (the experiment and its collection), gdb_tp_packets.c
 * (the QT and qT packets) and gdb_tp_frame.c (reads from a trace frame).
 *
 * An experiment belongs to one gdb session and has an engine of its own on
 * the process once started, so that two gdbs run two experiments, and one
 * outlives its gdb (disconnected tracing): the trace buffer is utraced's,
 * and a gdb that connects to the process later finds the experiment.
 * A hit is collected while the thread is stopped at the trap, from the
 * engine's bp_goes_on callback, and the thread goes on out of line: one
 * ptrace stop per hit, no other thread held (docs/xol.md).
 */
#ifndef UTRACED_GDB_TP_H
#define UTRACED_GDB_TP_H

#include "gdb_int.h"
#include "gdb_tp_store.h"

#define TP_MAX_POINTS  4096 /* tracepoint locations in one experiment */
#define TP_MAX_PIECES  1024 /* actions and source strings of one location */
#define TP_MAX_TSVS    1024
#define TP_MAX_RO      256	  /* QTro ranges */
#define TP_MAX_STEPS   64	  /* threads stepping for while-stepping at once */
#define TP_MAX_COLLECT (1u << 20) /* bytes one memory action collects */

/* One action: R (registers), M (memory), X (an expression collecting). */
struct tp_action {
	char kind;
	bool step;	   /* a while-stepping action */
	int basereg;	   /* M: -1, absolute */
	uint64_t rmask[4]; /* R: the registers gdb asked for (gdb's numbers 0..255) */
	uint64_t off, len;
	uint8_t *code; /* X */
	size_t codelen;
};

/* What gdb sent, to give back in qTfP/qTsP: action packets and sources. */
struct tp_piece {
	char kind; /* 'A' actions, 'S' while-stepping actions, 'Z' source */
	char *text;
};

struct tp_point {
	unsigned num;
	uint64_t addr;
	bool enabled;
	char type; /* 0: a trap; 'F' fast, 'S' static (collected as traps) */
	unsigned flen;
	uint64_t step, pass;
	uint8_t *cond;
	size_t condlen;
	char *cond_hex; /* as sent */
	struct tp_action *acts;
	size_t nacts;
	struct tp_piece *pieces;
	size_t npieces;
	uint64_t hits, usage;
	bool inserted;
};

struct tp_tsv {
	unsigned num;
	int64_t init, val;
	char *name_hex;
	bool builtin; /* trace_timestamp: its value is the time */
};

/* A thread single-stepping for a while-stepping action. */
struct tp_step {
	pid_t tid;
	size_t point; /* index in pts */
	uint64_t done;
};

#define TP_FAST_REGS 64

struct tp_exp {
	struct tp_exp *next;	   /* all experiments (tp_registry) */
	struct gdb_session *owner; /* NULL: its gdb has gone, tracing goes on */
	pid_t pid;
	struct tracer *tracer;
	struct engine *e; /* ours, from QTStart to the end of the run */
	struct engine_client client;
	const struct arch_desc *arch;
	struct tp_point *pts;
	size_t npts, cappts;
	struct tp_tsv *tsvs;
	size_t ntsvs, captsvs;
	struct {
		uint64_t lo, hi;
	} ro[TP_MAX_RO];
	size_t nro;
	struct tp_store store;
	bool running;
	bool ever_run;	 /* tnotrun until the first QTStart */
	bool teardown;	 /* stopped by a hit: our engine leaves at the next chance */
	bool disconn_ok; /* QTDisconnected:1 */
	bool defining;	 /* the last QTDP ended with '-' */
	char stop_reason[96];
	unsigned stop_tpnum;
	uint64_t start_us, stop_us;
	char *user_hex, *notes_hex, *stop_note_hex;
	size_t it_point, it_piece; /* qTsP position */
	bool it_head_sent;
	size_t it_tsv; /* qTsV position */
	struct tp_step steps[TP_MAX_STEPS];
	size_t nsteps;
	struct buf frame;     /* the frame being collected */
	struct tp_point *cur; /* the tracepoint being collected */
	pid_t cur_tid;
	int cur_err; /* an action's evaluation failed */
	/* the agent's frames' register block: its fixed bytes, where its registers go */
	uint8_t fast_g[2048];
	size_t fast_g_len;
	struct tpf_reg fast_regs[TP_FAST_REGS]; /* (src: in agent_trace_record.regs) */
	size_t fast_nregs;
	uint64_t fast_covered[4];   /* the registers an agent's general block has (gdb's numbers) */
	struct tpf_regmap fast_map; /* the three: the store's, for its 'r' blocks */
	/* the agent's frames of a drain, kept in the order of their hits (seq) */
	struct buf fast_pend; /* struct tp_pend, each followed by its memory blocks */
	size_t fast_npend;
	uint64_t fast_next_seq; /* the one after the last kept */
	bool fast_seq_known;
	bool fast_held; /* frames past a gap in the numbers wait for one drain */
};

/* gdb_tp.c */
struct tp_exp *tp_of(struct gdb_session *s, bool create);
void tp_free(struct tp_exp *x);
void tp_reset(struct tp_exp *x); /* QTinit */
int tp_start(struct tp_exp *x, struct gdb_session *s);
void tp_stop(struct tp_exp *x, const char *reason, unsigned tpnum);
int tp_install(struct tp_exp *x, struct tp_point *p); /* a new point while running */
uint64_t tp_now_us(void);
void tp_point_free(struct tp_point *p);
struct tp_point *tp_find(struct tp_exp *x, unsigned num, uint64_t addr);
struct tp_tsv *tp_tsv_find(struct tp_exp *x, unsigned num);
int64_t tp_tsv_value(struct tp_tsv *v);
/* Leave what a stop inside a hit could not (our engine, its breakpoints). */
void tp_settle(struct tp_exp *x);

/* gdb_tp_fast.c: fast tracepoints, collected by the in-process agent */
/* The program of the tracepoint at addr for the agent (or none: a trap). */
void tp_fast_install(struct tp_exp *x, uint64_t addr);
/* Tell the agent the buffer's space left (none once the run stopped). */
void tp_fast_budget(struct tp_exp *x);
/* Take in every frame the agent recorded so far. */
void tp_fast_drain(struct tp_exp *x);
/* Keep the agent's frames taken in but not kept yet (before a frame of ours). */
void tp_fast_flush(struct tp_exp *x);
/* A new run, or none: the agent's frames waiting dropped, their numbering new. */
void tp_fast_reset(struct tp_exp *x);
struct agent_trace_record;
void tp_collected(void *ctx, struct engine *e, const struct agent_trace_record *r);

/* gdb_tp_packets.c: the texts the upload packets and the trace file share */
void tp_put_status(struct buf *b, struct tp_exp *x);
void tp_put_point(struct buf *b, const struct tp_point *p);
void tp_put_piece(struct buf *b, const struct tp_point *p, const struct tp_piece *pc);
void tp_put_tsv(struct buf *b, const struct tp_tsv *v);

/* gdb_tp_save.c: QTSave:hexpath, the experiment written as gdb's trace file */
int gdb_tp_save(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end);

/* gdb_tp_frame.c: the selected frame (s->tframe >= 0) */
const uint8_t *tp_frame_data(struct gdb_session *s, size_t *len, unsigned *tpnum);

#endif
