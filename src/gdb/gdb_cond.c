/*
 * gdb_cond.c: breakpoint conditions evaluated by utraced (ConditionalBreakpoints).
 *
 * gdb sends a breakpoint's conditions as agent bytecode on its Z0/Z1
 * packet. At a hit whose conditions are all false the thread simply goes
 * on, and gdb never hears of it: a full stop report, register reads and a
 * resume saved per false hit. A condition that cannot be evaluated counts
 * as true: gdb then evaluates it itself.
 *
 * The text of agent-style dprintf (run here, or recorded by the in-process
 * agent: gdb_cond_printed) goes to gdb's console as O packets while gdb
 * waits for a stop, else to our standard output (to_gdb).
 */
#include "gdb_int.h"
#include "../agent/agent.h"
#include "../util/fdio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gdb_cond {
	pid_t pid;
	int type; /* 0: software, 1: hardware breakpoint */
	uint64_t addr;
	struct agent_cond_list l;
};

static struct gdb_cond *find(struct gdb_session *s, pid_t pid, int type, uint64_t addr)
{
	for (size_t i = 0; i < s->nconds; i++)
		if (s->conds[i].pid == pid && s->conds[i].type == type && s->conds[i].addr == addr)
			return &s->conds[i];
	return NULL;
}

void gdb_cond_clear(struct gdb_session *s, pid_t pid, int type, uint64_t addr)
{
	struct gdb_cond *c = find(s, pid, type, addr);

	if (!c)
		return;
	agent_cond_list_free(&c->l);
	*c = s->conds[--s->nconds];
}

void gdb_cond_free_all(struct gdb_session *s)
{
	for (size_t i = 0; i < s->nconds; i++)
		agent_cond_list_free(&s->conds[i].l);
	free(s->conds);
	s->conds = NULL;
	s->nconds = 0;
}

/* The ";X..." tail of a Z0/Z1 packet; no tail (or no condition) clears them. */
int gdb_cond_set(struct gdb_session *s, pid_t pid, int type, uint64_t addr, const char *tail,
		 size_t len)
{
	struct agent_cond_list l;
	struct gdb_cond *c, *v;
	int err;

	gdb_cond_clear(s, pid, type, addr);
	if (!len)
		return 0;
	err = agent_parse_conditions(tail, len, &l);
	if (err)
		return err;
	if (!l.nconds && !l.ncmds) {
		agent_cond_list_free(&l);
		return 0;
	}
	v = realloc(s->conds, (s->nconds + 1) * sizeof(*v));
	if (!v) {
		agent_cond_list_free(&l);
		return -ENOMEM;
	}
	s->conds = v;
	c = &s->conds[s->nconds++];
	*c = (struct gdb_cond){.pid = pid, .type = type, .addr = addr, .l = l};
	return 0;
}

/* The engine gets the conditions and commands too, for the in-process agent (patch.c). */
void gdb_cond_to_engine(struct gdb_session *s, pid_t pid, uint64_t addr)
{
	struct gdb_cond *c = find(s, pid, 0, addr);

	if (c)
		engine_bp_conds(s->engine, addr, c->l.conds, c->l.nconds, c->l.cmds, c->l.ncmds);
	else
		engine_bp_conds(s->engine, addr, NULL, 0, NULL, 0);
}

struct cond_ctx {
	struct gdb_session *s;
	struct engine *e;
	pid_t tid;
	bool batch; /* a line of the agent's (gdb_cond_printed): written with its batch */
};

static int cond_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct cond_ctx *c = ctx;
	ssize_t n = engine_mem_read(c->e, addr, buf, len);

	return n == (ssize_t)len ? 0 : -EIO;
}

static int cond_read_reg(void *ctx, int regnum, uint64_t *val)
{
	struct cond_ctx *c = ctx;
	const struct arch_desc *d = engine_arch(c->e);
	struct arch_regs *r;
	uint8_t raw[64];
	int err;

	if (regnum < 0 || regnum >= d->nregs)
		return -EINVAL;
	/* a condition on a local reads rbp: no need for the vector state too */
	err = engine_regs_of(c->e, c->tid, arch_reg_set(d, regnum), &r);
	if (err)
		return err;
	if (arch_reg_read(d, r, regnum, raw) < 0)
		return -EIO;
	*val = 0;
	memcpy(val, raw, d->regs[regnum].size < 8 ? d->regs[regnum].size : 8);
	return 0;
}

/*
 * dprintf in the agent style goes to gdb's console as "O" packets, which
 * gdb takes while it waits for the answer to a resume in all-stop (and
 * only then: any other time it would read one as the reply to its next
 * request; in non-stop, where requests go while threads run, never).
 * Otherwise (non-stop, a line printed while gdb has the process stopped,
 * or at a detach) the text goes where gdbserver puts it: our standard
 * output, the program's; on stdio our stdout is gdb's: stderr then.
 */
static bool to_gdb(const struct gdb_session *s)
{
	return s && s->waiting && !s->nonstop && !s->freeing && !s->o_off;
}

static int out_fd(const struct gdb_session *s)
{
	return s && s->server && s->server->stdio ? 2 : 1;
}

/*
 * gdb prints O text slower than the agent records it (about 10 us a line
 * against 1): past this much queued for gdb, the program waits for it
 * (engine_client.out_busy) rather than our memory growing without end.
 */
#define O_QUEUED_MAX (1u << 20)

bool gdb_cond_out_busy(const struct gdb_session *s)
{
	return to_gdb(s) && s->rsp.out.len > O_QUEUED_MAX;
}

/* text as "O" packets of at most O_TEXT bytes each (hex doubles them). */
#define O_TEXT ((RSP_MAX_PACKET - 1) / 2)

static void send_o(struct gdb_session *s, const char *text, size_t len)
{
	struct buf b;

	buf_init(&b);
	while (len) {
		size_t n = len < O_TEXT ? len : O_TEXT;

		buf_reset(&b);
		buf_putc(&b, 'O');
		buf_hex(&b, text, n);
		rsp_send(&s->rsp, b.data, b.len);
		s->o_bytes += n;
		text += n;
		len -= n;
	}
	buf_free(&b);
}

static int emit(struct gdb_session *s, bool o, const char *text, size_t len)
{
	if (!o)
		return fd_write_all(out_fd(s), text, len);
	send_o(s, text, len);
	return 0;
}

/*
 * The agent's lines come in batches (a drain of the rings): they are
 * gathered here and written at the batch's end, one write (or a few
 * packets) for many lines.
 */
static struct {
	char buf[64 * 1024];
	size_t len;
	struct gdb_session *s;
	bool o;
} batch;

static int batch_flush(void)
{
	int err = batch.len ? emit(batch.s, batch.o, batch.buf, batch.len) : 0;

	batch.len = 0;
	return err;
}

static int cond_print(void *ctx, const char *text, size_t len)
{
	struct cond_ctx *c = ctx;
	bool o = to_gdb(c->s);

	if (!c->batch) /* a line printed here, after the batch's: in order */
		return batch_flush() ?: emit(c->s, o, text, len);
	if (batch.len && (batch.s != c->s || batch.o != o || len > sizeof(batch.buf) - batch.len))
		batch_flush();
	if (len > sizeof(batch.buf))
		return emit(c->s, o, text, len);
	batch.s = c->s;
	batch.o = o;
	memcpy(batch.buf + batch.len, text, len);
	batch.len += len;
	return 0;
}

void gdb_cond_session_gone(struct gdb_session *s)
{
	if (batch.len && batch.s == s)
		batch_flush();
	if (batch.s == s)
		batch.s = NULL;
}

/*
 * Is st a breakpoint hit gdb must not hear of: its conditions, evaluated
 * here, are all false, or they hold and its commands (dprintf) ran here?
 */
bool gdb_cond_false(struct gdb_session *s, const struct engine_stop *st)
{
	struct gdb_proc *pr = gdb_proc_of(s, st->pid);
	struct cond_ctx ctx = {.s = s, .tid = st->tid};
	struct agent_env env = {.ctx = &ctx,
				.read_mem = cond_read_mem,
				.read_reg = cond_read_reg,
				.print = cond_print};
	struct gdb_cond *c;
	uint64_t pc;

	if (!s->nconds || !pr ||
	    (st->kind != ENGINE_STOP_SWBREAK && st->kind != ENGINE_STOP_HWBREAK))
		return false;
	ctx.e = pr->e;
	if (engine_pc(pr->e, st->tid, &pc) < 0)
		return false;
	c = find(s, st->pid, st->kind == ENGINE_STOP_SWBREAK ? 0 : 1, pc);
	/* over the program's own int3 only gdb knows how to go on */
	if (!c || engine_bp_permanent(pr->e, pc))
		return false;
	if (c->l.nconds && !agent_conds_hold(&c->l, &env))
		return true;
	if (!c->l.ncmds)
		return false;
	agent_run_cmds(&c->l, &env);
	return true;
}

void gdb_cond_printed(struct gdb_session *s, struct engine *e, const struct agent_record *r)
{
	struct cond_ctx ctx = {.s = s, .e = e, .batch = true};
	struct agent_env env = {.ctx = &ctx, .print = cond_print};
	struct gdb_cond *c;

	if (!r) { /* the batch is over */
		batch_flush();
		return;
	}
	c = find(s, engine_pid(e), 0, r->bp);
	if (!c || r->cmd >= c->l.ncmds)
		return; /* its dprintf is gone (deleted since): nobody to print for */
	agent_record_replay(c->l.cmds[r->cmd].code, c->l.cmds[r->cmd].len, r, &env);
}
