/*
 * gdb_tp.c: a tracepoint experiment's life and its collection (see
 * gdb_tp.h).
 *
 * The experiment attaches an engine of its own at QTStart: its
 * breakpoints are the tracepoints, its bp_goes_on callback collects a
 * frame while the hitting thread is stopped at the trap and answers "go
 * on", so the thread steps over out of line and nothing else stops. Only
 * while-stepping needs more: that thread alone stops for our engine
 * (non-stop) and is single-stepped, a frame at each step. A run that ends
 * inside a hit (pass count, full buffer, an expression's error) cannot
 * leave the engine from within its callback: it stops collecting at once
 * and the engine leaves at the next turn of the event loop
 * (gdb_tp_settle_all).
 */
#include "gdb_tp.h"
#include "../agent/agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct tp_exp *tp_registry;

uint64_t tp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct tp_point *tp_find(struct tp_exp *x, unsigned num, uint64_t addr)
{
	for (size_t i = 0; i < x->npts; i++)
		if (x->pts[i].num == num && x->pts[i].addr == addr)
			return &x->pts[i];
	return NULL;
}

struct tp_tsv *tp_tsv_find(struct tp_exp *x, unsigned num)
{
	for (size_t i = 0; i < x->ntsvs; i++)
		if (x->tsvs[i].num == num)
			return &x->tsvs[i];
	return NULL;
}

int64_t tp_tsv_value(struct tp_tsv *v)
{
	return v->builtin ? (int64_t)tp_now_us() : v->val;
}

void tp_point_free(struct tp_point *p)
{
	for (size_t i = 0; i < p->nacts; i++)
		free(p->acts[i].code);
	for (size_t i = 0; i < p->npieces; i++)
		free(p->pieces[i].text);
	free(p->acts);
	free(p->pieces);
	free(p->cond);
	free(p->cond_hex);
}

/* gdbserver's one built-in variable: $trace_timestamp, microseconds. */
static void add_builtin(struct tp_exp *x)
{
	static const char name[] = "trace_timestamp";
	char *hex = malloc(2 * sizeof(name) + 1);
	struct tp_tsv *v;

	if (!hex)
		return;
	x->tsvs = array_grow(x->tsvs, x->ntsvs, &x->captsvs, sizeof(*x->tsvs));
	for (size_t i = 0; i + 1 < sizeof(name); i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)name[i]);
	v = &x->tsvs[x->ntsvs++];
	*v = (struct tp_tsv){.num = 1, .name_hex = hex, .builtin = true};
}

static void our_engine_leaves(struct tp_exp *x)
{
	if (!x->e)
		return;
	engine_detach(x->e);
	x->e = NULL;
	x->nsteps = 0;
	x->teardown = false;
	for (size_t i = 0; i < x->npts; i++)
		x->pts[i].inserted = false;
}

void tp_settle(struct tp_exp *x)
{
	if (x && x->teardown && !x->running)
		our_engine_leaves(x);
}

void gdb_tp_settle_all(void)
{
	for (struct tp_exp *x = tp_registry; x; x = x->next)
		tp_settle(x);
}

void tp_stop(struct tp_exp *x, const char *reason, unsigned tpnum)
{
	if (!x->running)
		return;
	x->running = false;
	x->stop_us = tp_now_us();
	snprintf(x->stop_reason, sizeof(x->stop_reason), "%s", reason);
	x->stop_tpnum = tpnum;
	x->teardown = true;
	tp_fast_budget(x); /* nothing more for the agent to collect */
}

void tp_reset(struct tp_exp *x)
{
	tp_stop(x, "tstop", 0);
	our_engine_leaves(x);
	for (size_t i = 0; i < x->npts; i++)
		tp_point_free(&x->pts[i]);
	x->npts = 0;
	/* the built-in variable stays, as gdbserver's (it has a getter) */
	for (size_t i = 0; i < x->ntsvs;) {
		if (x->tsvs[i].builtin) {
			i++;
			continue;
		}
		free(x->tsvs[i].name_hex);
		x->tsvs[i] = x->tsvs[--x->ntsvs];
	}
	x->nro = 0;
	x->defining = false;
	tps_clear(&x->store);
	tp_fast_reset(x);
}

void tp_free(struct tp_exp *x)
{
	struct tp_exp **pp;

	if (!x)
		return;
	for (pp = &tp_registry; *pp && *pp != x; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = x->next;
	tp_reset(x);
	for (size_t i = 0; i < x->ntsvs; i++)
		free(x->tsvs[i].name_hex);
	free(x->tsvs);
	free(x->pts);
	free(x->user_hex);
	free(x->notes_hex);
	free(x->stop_note_hex);
	tps_free(&x->store);
	buf_free(&x->frame);
	buf_free(&x->fast_pend);
	free(x);
}

void gdb_tp_free_all(void)
{
	while (tp_registry) {
		struct tp_exp *x = tp_registry;

		if (x->owner)
			x->owner->tp = NULL;
		tp_stop(x, "tstop", 0);
		tp_free(x);
	}
}

/*
 * The session's experiment: its own, else one left running on the same
 * process by a gdb that has gone (a reconnect finds it), else a new one.
 */
struct tp_exp *tp_of(struct gdb_session *s, bool create)
{
	struct tp_exp *x;
	pid_t pid;

	if (s->tp) {
		x = s->tp;
		tp_settle(x);
		/* a new process of the session (extended-remote `run`): the next run is there */
		if (!x->running && !x->e && s->engine && engine_pid(s->engine) != x->pid) {
			x->pid = engine_pid(s->engine);
			x->arch = engine_arch(s->engine);
		}
		return x;
	}
	if (!s->engine)
		return NULL;
	pid = engine_pid(s->engine);
	for (x = tp_registry; x; x = x->next)
		if (!x->owner && x->pid == pid) {
			x->owner = s;
			s->tp = x;
			tp_settle(x);
			return x;
		}
	if (!create)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->pid = pid;
	x->tracer = s->tracer;
	x->owner = s;
	x->arch = engine_arch(s->engine);
	snprintf(x->stop_reason, sizeof(x->stop_reason), "tnotrun");
	tps_init(&x->store);
	buf_init(&x->frame);
	buf_init(&x->fast_pend);
	add_builtin(x);
	x->next = tp_registry;
	tp_registry = x;
	s->tp = x;
	return x;
}

/* The session goes: its experiment goes on without it when gdb asked, else ends. */
void gdb_tp_session_gone(struct gdb_session *s)
{
	struct tp_exp *x = s->tp;

	s->tp = NULL;
	if (!x)
		return;
	tp_settle(x);
	if (x->running && x->disconn_ok && x->e) {
		x->owner = NULL;
		return;
	}
	tp_stop(x, "tdisconnected", 0);
	tp_free(x);
}

/* ---- collection ---- */

struct tp_hit {
	struct tp_exp *x;
	pid_t tid;
	uint64_t pc;
};

static int hit_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct tp_hit *h = ctx;
	ssize_t n = engine_mem_read(h->x->e, addr, buf, len);

	return n == (ssize_t)len ? 0 : -EIO;
}

static int hit_read_reg(void *ctx, int regnum, uint64_t *val)
{
	struct tp_hit *h = ctx;
	const struct arch_desc *d = h->x->arch;
	struct arch_regs *r;
	uint8_t raw[64];
	int err;

	if (regnum < 0 || regnum >= d->nregs || d->regs[regnum].size > sizeof(raw))
		return -EINVAL;
	err = engine_regs_of(h->x->e, h->tid, arch_reg_set(d, regnum), &r);
	if (err)
		return err;
	if (arch_reg_read(d, r, regnum, raw) < 0)
		return -EIO;
	*val = 0;
	memcpy(val, raw, d->regs[regnum].size < 8 ? d->regs[regnum].size : 8);
	if (regnum == d->pc_regno)
		*val = h->pc;
	return 0;
}

/* len bytes at addr into the frame, as far as they can be read. */
static int collect_mem(struct tp_hit *h, uint64_t addr, uint64_t len, bool nz)
{
	uint8_t chunk[4096];

	if (len > TP_MAX_COLLECT)
		len = TP_MAX_COLLECT;
	while (len) {
		size_t want = len > sizeof(chunk) ? sizeof(chunk) : (size_t)len;
		ssize_t got = engine_mem_read(h->x->e, addr, chunk, want);
		uint8_t *nul;

		if (got <= 0)
			break;
		if (nz && (nul = memchr(chunk, 0, (size_t)got))) {
			tpf_put_mem(&h->x->frame, addr, chunk, (size_t)(nul - chunk) + 1);
			break;
		}
		tpf_put_mem(&h->x->frame, addr, chunk, (size_t)got);
		if ((size_t)got < want)
			break;
		addr += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return 0;
}

static int hit_collect(void *ctx, uint64_t addr, uint64_t len, bool nz)
{
	return collect_mem(ctx, addr, len, nz);
}

static int hit_tsv_get(void *ctx, unsigned num, int64_t *val)
{
	struct tp_hit *h = ctx;
	struct tp_tsv *v = tp_tsv_find(h->x, num);

	if (!v)
		return -ENOENT;
	*val = tp_tsv_value(v);
	return 0;
}

static int hit_tsv_set(void *ctx, unsigned num, int64_t val)
{
	struct tp_hit *h = ctx;
	struct tp_tsv *v = tp_tsv_find(h->x, num);

	if (!v)
		return -ENOENT;
	v->val = val;
	return 0;
}

static int hit_tsv_collect(void *ctx, unsigned num)
{
	struct tp_hit *h = ctx;
	struct tp_tsv *v = tp_tsv_find(h->x, num);

	if (!v)
		return -ENOENT;
	tpf_put_tsv(&h->x->frame, (int32_t)num, tp_tsv_value(v));
	return 0;
}

static void env_of(struct tp_hit *h, struct agent_env *env)
{
	*env = (struct agent_env){.ctx = h,
				  .read_mem = hit_read_mem,
				  .read_reg = hit_read_reg,
				  .collect = hit_collect,
				  .tsv_get = hit_tsv_get,
				  .tsv_set = hit_tsv_set,
				  .tsv_collect = hit_tsv_collect};
}

/* Every register, as a 'g' reply has them, the pc the hit's. */
static int collect_regs(struct tp_hit *h)
{
	const struct arch_desc *d = h->x->arch;
	uint8_t block[4096];
	struct arch_regs *r;
	size_t off = 0;
	int err;

	if (d->g_size > sizeof(block))
		return -E2BIG;
	err = engine_regs(h->x->e, h->tid, &r);
	if (err)
		return err;
	for (int i = 0; i < d->nregs; i++) {
		size_t n = d->regs[i].size;

		if (arch_reg_read(d, r, i, block + off) < 0)
			memset(block + off, 0, n);
		if (i == d->pc_regno)
			memcpy(block + off, &h->pc, n < 8 ? n : 8);
		off += n;
	}
	tpf_put_regs(&h->x->frame, block, d->g_size);
	return 0;
}

static uint64_t reg_value(struct tp_hit *h, int regno)
{
	uint64_t v = 0;

	hit_read_reg(h, regno, &v);
	return v;
}

static const char *eval_err_name(int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		return "unhandled opcode";
	case -EOVERFLOW:
		return "stack overflow";
	case -EINVAL:
		return "stack underflow or bad bytecode";
	case -EDOM:
		return "division by zero";
	case -ENOENT:
		return "unknown trace state variable";
	}
	return "memory read or evaluation failed";
}

/* Stop the run on an expression's error: gdb shows "terror" with the text. */
static void stop_on_error(struct tp_exp *x, struct tp_point *p, const char *what, int err)
{
	char reason[96], hex[80];
	const char *msg = eval_err_name(err);
	size_t i;

	(void)what;
	for (i = 0; msg[i] && 2 * i + 2 < sizeof(hex); i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)msg[i]);
	hex[2 * i] = 0;
	snprintf(reason, sizeof(reason), "terror:%s", hex);
	tp_stop(x, reason, p->num);
}

/* One frame of p: its actions (step: the while-stepping ones). */
static void collect_frame(struct tp_exp *x, struct tp_point *p, pid_t tid, uint64_t pc, bool step)
{
	struct tp_hit h = {.x = x, .tid = tid, .pc = pc};
	struct agent_env env;
	int err = 0;

	tp_fast_flush(x); /* the agent's frames of earlier hits come first */
	env_of(&h, &env);
	buf_reset(&x->frame);
	for (size_t i = 0; i < p->nacts && !err; i++) {
		struct tp_action *a = &p->acts[i];
		uint64_t base;

		if (a->step != step)
			continue;
		switch (a->kind) {
		case 'R':
			collect_regs(&h);
			break;
		case 'M':
			base = a->basereg < 0 ? 0 : reg_value(&h, a->basereg);
			collect_mem(&h, base + a->off, a->len, false);
			break;
		case 'X':
			err = agent_eval(a->code, a->codelen, &env, NULL);
			break;
		}
	}
	if (err) {
		stop_on_error(x, p, "action", err);
		return;
	}
	if (tps_add(&x->store, p->num, (uint8_t *)x->frame.data, x->frame.len) < 0) {
		tp_stop(x, "tfull", 0);
		return;
	}
	p->usage += TPS_HDR + x->frame.len;
}

static bool cond_holds(struct tp_exp *x, struct tp_point *p, pid_t tid, uint64_t pc)
{
	struct tp_hit h = {.x = x, .tid = tid, .pc = pc};
	struct agent_env env;
	int64_t v = 0;
	int err;

	if (!p->cond)
		return true;
	env_of(&h, &env);
	err = agent_eval(p->cond, p->condlen, &env, &v);
	if (err) {
		stop_on_error(x, p, "condition", err);
		return false;
	}
	return v != 0;
}

static bool pass_reached(struct tp_point *p)
{
	return p->pass && p->hits >= p->pass;
}

static bool add_step(struct tp_exp *x, pid_t tid, size_t point)
{
	if (x->nsteps >= TP_MAX_STEPS)
		return false;
	x->steps[x->nsteps++] = (struct tp_step){.tid = tid, .point = point};
	return true;
}

/* A hit of one of our traps: collect, and (unless while-stepping) go on. */
static bool tp_goes_on(void *ctx, struct engine *e, pid_t tid, uint64_t addr)
{
	struct tp_exp *x = ctx;
	bool stepping = false;

	(void)e;
	for (size_t i = 0; i < x->npts && x->running; i++) {
		struct tp_point *p = &x->pts[i];

		if (p->addr != addr || !p->enabled || !cond_holds(x, p, tid, addr) || !x->running)
			continue;
		p->hits++;
		collect_frame(x, p, tid, addr, false);
		if (!x->running)
			break;
		if (p->step && add_step(x, tid, i)) {
			stepping = true;
			continue;
		}
		if (pass_reached(p))
			tp_stop(x, "tpasscount", p->num);
	}
	tp_fast_budget(x); /* (a fast tracepoint's trap: the buffer has less space) */
	return !stepping;
}

static struct tp_step *step_of(struct tp_exp *x, pid_t tid)
{
	for (size_t i = 0; i < x->nsteps; i++)
		if (x->steps[i].tid == tid)
			return &x->steps[i];
	return NULL;
}

static void resume_one(struct tp_exp *x, pid_t tid, enum engine_action act)
{
	struct engine_resume r = {.tid = tid, .action = act};

	engine_resume(x->e, &r, 1);
}

/* A thread stepping for while-stepping actions: a frame per step. */
static void step_stop(struct tp_exp *x, const struct engine_stop *st)
{
	struct tp_step *w;
	uint64_t pc = 0;
	bool more = false;

	engine_pc(x->e, st->tid, &pc);
	for (size_t i = 0; i < x->nsteps;) {
		struct tp_point *p;

		w = &x->steps[i];
		if (w->tid != st->tid) {
			i++;
			continue;
		}
		p = &x->pts[w->point];
		if (st->kind == ENGINE_STOP_STEP && x->running) {
			w->done++;
			collect_frame(x, p, st->tid, pc, true);
		}
		if (x->running && w->done < p->step) {
			more = true;
			i++;
			continue;
		}
		if (x->running && pass_reached(p))
			tp_stop(x, "tpasscount", p->num);
		x->steps[i] = x->steps[--x->nsteps];
	}
	resume_one(x, st->tid, more && x->running ? ENGINE_STEP : ENGINE_RUN);
}

static void tp_on_stop(void *ctx, const struct engine_stop *st)
{
	struct tp_exp *x = ctx;

	switch (st->kind) {
	case ENGINE_STOP_EXITED:
	case ENGINE_STOP_KILLED:
		tp_stop(x, "t???", 0);
		engine_detach(x->e);
		x->e = NULL;
		x->nsteps = 0;
		x->teardown = false;
		for (size_t i = 0; i < x->npts; i++)
			x->pts[i].inserted = false;
		if (!x->owner)
			tp_free(x);
		return;
	case ENGINE_STOP_SWBREAK:
	case ENGINE_STOP_STEP:
		if (step_of(x, st->tid)) {
			step_stop(x, st);
			return;
		}
		break;
	default:
		break;
	}
	/* the attach's stop (a process that was running): the traps go in, all run */
	if (st->kind == ENGINE_STOP_ATTACHED) {
		for (size_t i = 0; i < x->npts; i++)
			tp_install(x, &x->pts[i]);
		engine_set_nonstop(x->e, true);
		resume_one(x, -1, ENGINE_RUN);
		return;
	}
	/* anything else goes on; a signal is the program's: delivered */
	struct engine_resume r = {.tid = st->tid,
				  .action = ENGINE_RUN,
				  .sig = st->kind == ENGINE_STOP_SIGNAL ? st->sig : 0};

	engine_resume(x->e, &r, 1);
}

int tp_install(struct tp_exp *x, struct tp_point *p)
{
	int err;

	if (!x->e || p->inserted || engine_attaching(x->e))
		return 0;
	err = engine_bp_insert(x->e, ENGINE_BP_SW, p->addr, 1);
	if (err)
		return err;
	p->inserted = true;
	tp_fast_install(x, p->addr);
	return 0;
}

int tp_start(struct tp_exp *x, struct gdb_session *s)
{
	bool pass[NSIG];
	int err = 0;

	tp_settle(x);
	our_engine_leaves(x);
	x->client = (struct engine_client){.ctx = x,
					   .on_stop = tp_on_stop,
					   .bp_goes_on = tp_goes_on,
					   .bp_collected = tp_collected,
					   .name = "tracepoints",
					   .peer_pid = s->client.peer_pid,
					   .peer_uid = s->client.peer_uid};
	x->e = engine_attach_start(x->tracer, x->pid, &x->client, &err);
	if (!x->e)
		return err ? err : -ESRCH;
	for (int i = 0; i < NSIG; i++)
		pass[i] = true;
	engine_set_pass_signals(x->e, pass);
	tps_clear(&x->store);
	tp_fast_reset(x);
	for (size_t i = 0; i < x->npts; i++) {
		x->pts[i].hits = 0;
		x->pts[i].usage = 0;
	}
	for (size_t i = 0; i < x->ntsvs; i++)
		x->tsvs[i].val = x->tsvs[i].init;
	if (!engine_attaching(x->e)) {
		for (size_t i = 0; i < x->npts && !err; i++)
			err = tp_install(x, &x->pts[i]);
		if (err) {
			our_engine_leaves(x);
			return err;
		}
		engine_set_nonstop(x->e, true);
		resume_one(x, -1, ENGINE_RUN);
	}
	x->running = true;
	x->ever_run = true;
	x->teardown = false;
	x->start_us = tp_now_us();
	x->stop_us = 0;
	x->stop_tpnum = 0;
	snprintf(x->stop_reason, sizeof(x->stop_reason), "tnotrun");
	tp_fast_budget(x);
	return 0;
}
