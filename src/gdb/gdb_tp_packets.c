/*
 * gdb_tp_packets.c: the tracepoint packets (GDB manual, "Tracepoint
 * Packets"): definitions (QTinit, QTDP, QTDPsrc, QTDV, QTro), the run
 * (QTStart, QTStop, qTStatus, QTDisconnected, QTBuffer, QTNotes,
 * QTEnable/QTDisable), the upload to a gdb that reconnects (qTfP/qTsP,
 * qTfV/qTsV, qTP, qTV), and frames (QTFrame, qTBuffer). Every field is
 * parsed against the packet's end: a malformed packet is an error, never a
 * read past it.
 */
#include "gdb_tp.h"
#include "../agent/agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool lit(const char **q, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *q) < n || memcmp(*q, s, n))
		return false;
	*q += n;
	return true;
}

static int hex_field(const char **q, const char *end, uint64_t *v)
{
	return rsp_parse_hex(q, end, v) < 0 ? -EINVAL : 0;
}

/* "NUM:ADDR" */
static int num_addr(const char **q, const char *end, uint64_t *num, uint64_t *addr)
{
	if (hex_field(q, end, num) || !lit(q, end, ":") || hex_field(q, end, addr))
		return -EINVAL;
	return *num > 0xffff ? -EINVAL : 0;
}

static char *dup_range(const char *a, const char *b)
{
	char *s = malloc((size_t)(b - a) + 1);

	if (s) {
		memcpy(s, a, (size_t)(b - a));
		s[b - a] = 0;
	}
	return s;
}

/* "Xlen,hex": the bytecode, checked. */
static int parse_expr(const char **q, const char *end, uint8_t **code, size_t *len)
{
	uint64_t n;
	uint8_t *c;

	if (!lit(q, end, "X") || hex_field(q, end, &n) || !lit(q, end, ","))
		return -EINVAL;
	if (n == 0 || n > AGENT_CODE_MAX || (uint64_t)(end - *q) < 2 * n)
		return -EINVAL;
	c = malloc(n);
	if (!c)
		return -ENOMEM;
	if (rsp_hex_decode(*q, 2 * n, c, n) < 0 || agent_check(c, n) < 0) {
		free(c);
		return -EINVAL;
	}
	*q += 2 * n;
	*code = c;
	*len = n;
	return 0;
}

static int add_piece(struct tp_point *p, char kind, const char *a, const char *b)
{
	struct tp_piece *v;
	char *t;

	if (p->npieces >= TP_MAX_PIECES)
		return -E2BIG;
	v = realloc(p->pieces, (p->npieces + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->pieces = v;
	t = dup_range(a, b);
	if (!t)
		return -ENOMEM;
	v[p->npieces++] = (struct tp_piece){.kind = kind, .text = t};
	return 0;
}

static int add_action(struct tp_point *p, const struct tp_action *a)
{
	struct tp_action *v;

	if (p->nacts >= TP_MAX_PIECES)
		return -E2BIG;
	v = realloc(p->acts, (p->nacts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->acts = v;
	v[p->nacts++] = *a;
	return 0;
}

/* The actions of one "QTDP:-..." packet: R mask, M reg,off,len, X len,code. */
static int parse_actions(struct tp_exp *x, struct tp_point *p, const char *q, const char *end)
{
	const char *start = q;
	bool step = lit(&q, end, "S");
	uint64_t v;
	int err;

	while (q < end && *q != '-') {
		struct tp_action a = {.kind = *q, .step = step, .basereg = -1};

		switch (*q++) {
		case 'R': { /* every register is collected anyway (a 'g' block); the mask: which */
			const char *m = q;

			if (q >= end || rsp_hex_digit(*q) < 0)
				return -EINVAL;
			while (q < end && rsp_hex_digit(*q) >= 0)
				q++;
			for (unsigned bit = 0; m < q && bit < 256; bit += 4) /* (from its end) */
				a.rmask[bit / 64] |= (uint64_t)rsp_hex_digit(*--q) << (bit % 64);
			while (q < end && rsp_hex_digit(*q) >= 0)
				q++;
			break;
		}
		case 'M':
			if (lit(&q, end, "-1")) {
				a.basereg = -1;
			} else {
				if (hex_field(&q, end, &v) || v >= (uint64_t)x->arch->nregs)
					return -EINVAL;
				a.basereg = (int)v;
			}
			if (!lit(&q, end, ",") || hex_field(&q, end, &a.off) ||
			    !lit(&q, end, ",") || hex_field(&q, end, &a.len))
				return -EINVAL;
			break;
		case 'X':
			q--;
			err = parse_expr(&q, end, &a.code, &a.codelen);
			if (err)
				return err;
			break;
		case 'L': /* static trace data: none to collect here */
			continue;
		default:
			return -EINVAL;
		}
		err = add_action(p, &a);
		if (err) {
			free(a.code);
			return err;
		}
	}
	return add_piece(p, step ? 'S' : 'A', start + step, q);
}

/* QTDP:n:addr:E|D:step:pass[:Fflen][:S][:Xlen,cond][-] */
static int qtdp_new(struct tp_exp *x, const char *q, const char *end)
{
	struct tp_point p = {0}, *old;
	uint64_t num, addr, step, pass, v;
	const char *cq;
	int err;

	if (num_addr(&q, end, &num, &addr) || !lit(&q, end, ":") || q >= end ||
	    (*q != 'E' && *q != 'D'))
		return -EINVAL;
	p.enabled = *q++ == 'E';
	if (!lit(&q, end, ":") || hex_field(&q, end, &step) || !lit(&q, end, ":") ||
	    hex_field(&q, end, &pass))
		return -EINVAL;
	if (!tp_find(x, (unsigned)num, addr) && x->npts >= TP_MAX_POINTS)
		return -E2BIG;
	p.num = (unsigned)num;
	p.addr = addr;
	p.step = step;
	p.pass = pass;
	while (lit(&q, end, ":")) {
		if (lit(&q, end, "F")) {
			if (hex_field(&q, end, &v))
				goto bad;
			p.type = 'F';
			p.flen = (unsigned)v;
		} else if (lit(&q, end, "S")) {
			p.type = 'S';
		} else if (q < end && *q == 'X') {
			cq = q;
			free(p.cond);
			free(p.cond_hex);
			p.cond_hex = NULL;
			if (parse_expr(&q, end, &p.cond, &p.condlen))
				goto bad;
			p.cond_hex = dup_range(cq + 1, q);
		} else {
			goto bad;
		}
	}
	x->defining = lit(&q, end, "-");
	if (q != end)
		goto bad;
	old = tp_find(x, p.num, p.addr);
	if (old) {
		/*
		 * Sent again (gdb downloads a location anew while tracing once
		 * a library load re-sets its breakpoints): the new definition
		 * replaces the old one; its trap and counts stay.
		 */
		p.hits = old->hits;
		p.usage = old->usage;
		p.inserted = old->inserted;
		tp_point_free(old);
		*old = p;
	} else {
		x->pts = array_grow(x->pts, x->npts, &x->cappts, sizeof(*x->pts));
		old = &x->pts[x->npts++];
		*old = p;
	}
	if (x->running && !x->defining) {
		err = tp_install(x, old);
		if (err)
			return err;
	}
	return 0;
bad:
	free(p.cond);
	free(p.cond_hex);
	return -EINVAL;
}

static int handle_qtdp(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	struct tp_point *p;
	uint64_t num, addr;
	const char *body;
	int err;

	if (!lit(&q, end, "-")) {
		err = qtdp_new(x, q, end);
		if (!err)
			buf_puts(&s->reply, "OK");
		return err;
	}
	if (num_addr(&q, end, &num, &addr) || !lit(&q, end, ":"))
		return -EINVAL;
	p = tp_find(x, (unsigned)num, addr);
	if (!p)
		return -ENOENT;
	body = q;
	x->defining = end > body && end[-1] == '-';
	err = parse_actions(x, p, body, end);
	if (err)
		return err;
	if (x->running && !x->defining) {
		err = tp_install(x, p);
		if (err)
			return err;
	}
	buf_puts(&s->reply, "OK");
	return 0;
}

/* QTDPsrc:n:addr:type:start:slen:hex */
static int handle_qtdpsrc(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	struct tp_point *p;
	uint64_t num, addr;
	int err;

	if (num_addr(&q, end, &num, &addr) || !lit(&q, end, ":"))
		return -EINVAL;
	p = tp_find(x, (unsigned)num, addr);
	if (!p)
		return -ENOENT;
	if (!memchr(q, ':', (size_t)(end - q)))
		return -EINVAL;
	err = add_piece(p, 'Z', q, end);
	if (!err)
		buf_puts(&s->reply, "OK");
	return err;
}

/* QTDV:n:value:builtin:name */
static int handle_qtdv(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	uint64_t num, val, builtin;
	struct tp_tsv *v;
	char *name;

	if (hex_field(&q, end, &num) || !lit(&q, end, ":") || hex_field(&q, end, &val) ||
	    !lit(&q, end, ":") || hex_field(&q, end, &builtin) || !lit(&q, end, ":") ||
	    num > 0x7fffffff)
		return -EINVAL;
	name = dup_range(q, end);
	if (!name)
		return -ENOMEM;
	v = tp_tsv_find(x, (unsigned)num);
	if (!v) {
		if (x->ntsvs >= TP_MAX_TSVS) {
			free(name);
			return -E2BIG;
		}
		x->tsvs = array_grow(x->tsvs, x->ntsvs, &x->captsvs, sizeof(*x->tsvs));
		v = &x->tsvs[x->ntsvs++];
		*v = (struct tp_tsv){.num = (unsigned)num};
	}
	free(v->name_hex);
	v->name_hex = name;
	v->init = v->val = (int64_t)val;
	buf_puts(&s->reply, "OK");
	return 0;
}

/* QTro:start,end:start,end... */
static int handle_qtro(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	x->nro = 0;
	while (lit(&q, end, ":")) {
		uint64_t lo, hi;

		if (hex_field(&q, end, &lo) || !lit(&q, end, ",") || hex_field(&q, end, &hi))
			return -EINVAL;
		if (x->nro < TP_MAX_RO) {
			x->ro[x->nro].lo = lo;
			x->ro[x->nro++].hi = hi;
		}
	}
	if (q != end)
		return -EINVAL;
	buf_puts(&s->reply, "OK");
	return 0;
}

static int handle_qtenable(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end,
			   bool on)
{
	uint64_t num, addr;
	struct tp_point *p;

	if (num_addr(&q, end, &num, &addr) || q != end)
		return -EINVAL;
	p = tp_find(x, (unsigned)num, addr);
	if (!p)
		return -ENOENT;
	tp_fast_drain(x); /* the agent's frames of hits before this */
	p->enabled = on;
	if (on && x->running)
		tp_install(x, p);
	if (x->running)
		tp_fast_install(x, p->addr); /* (enabled or not, the agent's program changes) */
	buf_puts(&s->reply, "OK");
	return 0;
}

/* QTFrame:n | pc:addr | tdp:n | range:lo:hi | outside:lo:hi */
static uint64_t frame_pc(struct tp_exp *x, const uint8_t *d, size_t len, unsigned tpnum)
{
	uint8_t buf[TPS_REGS_MAX];
	const uint8_t *r = tps_regs(&x->store, d, len, x->arch->g_size, buf);
	uint64_t pc = 0;
	size_t off = 0;

	if (r) {
		for (int i = 0; i < x->arch->pc_regno; i++)
			off += x->arch->regs[i].size;
		memcpy(&pc, r + off,
		       x->arch->regs[x->arch->pc_regno].size < 8
			       ? x->arch->regs[x->arch->pc_regno].size
			       : 8);
		return pc;
	}
	for (size_t i = 0; i < x->npts; i++) /* a guess, as gdbserver's */
		if (x->pts[i].num == tpnum)
			return x->pts[i].addr;
	return 0;
}

static int handle_qtframe(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	enum { BY_NUM, BY_PC, BY_TDP, IN_RANGE, OUTSIDE } how = BY_NUM;
	uint64_t a = 0, b = 0;
	unsigned tpnum;
	size_t len;
	long n;

	if (lit(&q, end, "pc:"))
		how = BY_PC;
	else if (lit(&q, end, "tdp:"))
		how = BY_TDP;
	else if (lit(&q, end, "range:"))
		how = IN_RANGE;
	else if (lit(&q, end, "outside:"))
		how = OUTSIDE;
	if (how == BY_NUM && lit(&q, end, "ffffffff") && q == end) {
		s->tframe = -1;
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (hex_field(&q, end, &a))
		return -EINVAL;
	if ((how == IN_RANGE || how == OUTSIDE) && (!lit(&q, end, ":") || hex_field(&q, end, &b)))
		return -EINVAL;
	if (q != end)
		return -EINVAL;
	if (how == BY_NUM) {
		n = a < x->store.count ? (long)a : -1;
	} else {
		for (n = s->tframe + 1;; n++) {
			const uint8_t *d = tps_frame(&x->store, (size_t)n, &tpnum, &len);
			uint64_t pc;

			if (!d) {
				n = -1;
				break;
			}
			if (how == BY_TDP) {
				if (tpnum == a)
					break;
				continue;
			}
			pc = frame_pc(x, d, len, tpnum);
			if ((how == BY_PC && pc == a) || (how == IN_RANGE && pc >= a && pc <= b) ||
			    (how == OUTSIDE && (pc < a || pc > b)))
				break;
		}
	}
	if (n < 0 || !tps_frame(&x->store, (size_t)n, &tpnum, &len)) {
		buf_puts(&s->reply, "F-1");
		return 0;
	}
	s->tframe = n;
	buf_printf(&s->reply, "F%lxT%x", (unsigned long)n, tpnum);
	return 0;
}

static void put_hex_str(struct buf *b, const char *hex)
{
	buf_puts(b, hex ? hex : "");
}

/* qTStatus's reply after its 'T': also the trace file's status line (gdb_tp_save.c) */
void tp_put_status(struct buf *b, struct tp_exp *x)
{
	buf_printf(b, "%d;", x->running ? 1 : 0);
	if (!x->running && !strcmp(x->stop_reason, "tstop")) {
		buf_puts(b, "tstop:");
		put_hex_str(b, x->stop_note_hex);
	} else {
		buf_puts(b, x->stop_reason);
	}
	buf_printf(b, ":%x;tframes:%zx;tcreated:%lx;tfree:%zx;tsize:%zx;circular:%d;",
		   x->stop_tpnum, x->store.count, x->store.created, x->store.size - x->store.used,
		   x->store.size, x->store.circular ? 1 : 0);
	buf_printf(b, "disconn:%d;starttime:%llx;stoptime:%llx;username:", x->disconn_ok,
		   (unsigned long long)x->start_us, (unsigned long long)x->stop_us);
	put_hex_str(b, x->user_hex);
	buf_puts(b, ";notes:");
	put_hex_str(b, x->notes_hex);
	buf_puts(b, ":");
}

int gdb_handle_qtstatus(struct gdb_session *s, const char *p, size_t len)
{
	struct tp_exp *x = tp_of(s, false);

	(void)p;
	(void)len;
	if (!x) {
		buf_printf(&s->reply,
			   "T0;tnotrun:0;tframes:0;tcreated:0;tfree:%x;tsize:%x;"
			   "circular:0;disconn:0;starttime:0;stoptime:0;username:;notes::",
			   TPS_DEFAULT_SIZE, TPS_DEFAULT_SIZE);
		return 0;
	}
	tp_fast_drain(x); /* the counts of the frames the agent has collected */
	buf_putc(&s->reply, 'T');
	tp_put_status(&s->reply, x);
	return 0;
}

/* QTNotes:user:hex;notes:hex;tstop:hex; */
static int handle_qtnotes(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	while (q < end) {
		char **dst;
		const char *semi;

		if (lit(&q, end, "user:"))
			dst = &x->user_hex;
		else if (lit(&q, end, "notes:"))
			dst = &x->notes_hex;
		else if (lit(&q, end, "tstop:"))
			dst = &x->stop_note_hex;
		else
			break;
		semi = memchr(q, ';', (size_t)(end - q));
		if (!semi)
			semi = end;
		free(*dst);
		*dst = dup_range(q, semi);
		q = semi < end ? semi + 1 : end;
	}
	buf_puts(&s->reply, "OK");
	return 0;
}

/* QTBuffer:circular:N, QTBuffer:size:N|-1 */
static int handle_qtbuffer(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	uint64_t v;

	if (lit(&q, end, "circular:")) {
		if (hex_field(&q, end, &v) || q != end)
			return -EINVAL;
		x->store.circular = v != 0;
	} else if (lit(&q, end, "size:")) {
		if (x->running)
			return -EBUSY;
		if (lit(&q, end, "-1"))
			v = TPS_DEFAULT_SIZE;
		else if (hex_field(&q, end, &v))
			return -EINVAL;
		if (q != end)
			return -EINVAL;
		tps_set_size(&x->store, v > TPS_MAX_SIZE ? TPS_MAX_SIZE : (size_t)v);
	} else {
		return -EINVAL;
	}
	buf_puts(&s->reply, "OK");
	return 0;
}

/* qTBuffer:off,len: the trace buffer's raw bytes (tsave) */
static int handle_qtbuffer_read(struct gdb_session *s, struct tp_exp *x, const char *q,
				const char *end)
{
	uint64_t off, n;
	uint8_t *data;
	size_t got;

	if (gdb_parse_addr_len(&q, end, &off, &n) || q != end)
		return -EINVAL;
	if (off == x->store.used) {
		buf_puts(&s->reply, "l");
		return 0;
	}
	if (off > x->store.used)
		return -EINVAL;
	if (n > (RSP_MAX_PACKET - 16) / 2)
		n = (RSP_MAX_PACKET - 16) / 2;
	data = malloc(n ? n : 1);
	if (!data)
		return -ENOMEM;
	got = tps_read_raw(&x->store, off, data, (size_t)n);
	buf_hex(&s->reply, data, got);
	free(data);
	return 0;
}

/* qTP:n:addr -> Vhits:usage (hex: gdb reads hex; gdbserver 13 answers decimal) */
static int handle_qtp(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	uint64_t num, addr;
	struct tp_point *p;

	if (num_addr(&q, end, &num, &addr) || q != end)
		return -EINVAL;
	p = tp_find(x, (unsigned)num, addr);
	/*
	 * A gdb that found the experiment at its connection asks with its own
	 * number for the tracepoint (gdb 13): the one at that address, if alone.
	 */
	for (size_t i = 0; !p && i < x->npts; i++)
		if (x->pts[i].addr == addr)
			p = &x->pts[i];
	for (size_t i = 0; p && p->num != num && i < x->npts; i++)
		if (x->pts[i].addr == addr && &x->pts[i] != p)
			return -ENOENT;
	if (!p)
		return -ENOENT;
	buf_printf(&s->reply, "V%llx:%llx", (unsigned long long)p->hits,
		   (unsigned long long)p->usage);
	return 0;
}

/* qTV:n -> Vvalue | U */
static int handle_qtv(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	uint64_t num;
	struct tp_tsv *v;
	int64_t val;
	size_t len;
	const uint8_t *d;

	if (hex_field(&q, end, &num) || q != end)
		return -EINVAL;
	v = tp_tsv_find(x, (unsigned)num);
	if (s->tframe >= 0) {
		d = tps_frame(&x->store, (size_t)s->tframe, NULL, &len);
		if (!d || tpf_read_tsv(d, len, x->arch->g_size, (int32_t)num, &val) < 0) {
			buf_puts(&s->reply, "U");
			return 0;
		}
	} else if (!v || (!x->running && !x->ever_run)) {
		buf_puts(&s->reply, "U");
		return 0;
	} else {
		val = tp_tsv_value(v);
	}
	buf_printf(&s->reply, "V%llx", (unsigned long long)val);
	return 0;
}

/* A tracepoint as qTfP lists it, and as the trace file's "tp T" line has it */
void tp_put_point(struct buf *b, const struct tp_point *p)
{
	buf_printf(b, "T%x:%llx:%c:%llx:%llx", p->num, (unsigned long long)p->addr,
		   p->enabled ? 'E' : 'D', (unsigned long long)p->step,
		   (unsigned long long)p->pass);
	if (p->type == 'F')
		buf_printf(b, ":F%x", p->flen);
	else if (p->type == 'S')
		buf_puts(b, ":S");
	if (p->cond_hex)
		buf_printf(b, ":X%s", p->cond_hex);
}

/* One of its actions or source strings (qTsP; "tp A", "tp S", "tp Z") */
void tp_put_piece(struct buf *b, const struct tp_point *p, const struct tp_piece *pc)
{
	buf_printf(b, "%c%x:%llx:%s", pc->kind, p->num, (unsigned long long)p->addr, pc->text);
}

/* A trace state variable as qTfV lists it ("tsv" in the trace file) */
void tp_put_tsv(struct buf *b, const struct tp_tsv *v)
{
	buf_printf(b, "%x:%llx:%x:%s", v->num, (unsigned long long)v->init, v->builtin ? 1 : 0,
		   v->name_hex ? v->name_hex : "");
}

/* qTfP/qTsP: each tracepoint, then its pieces, one per reply; "l" at the end. */
static int handle_qtp_list(struct gdb_session *s, struct tp_exp *x, bool first)
{
	struct tp_point *p;
	struct tp_piece *pc;

	if (first) {
		x->it_point = 0;
		x->it_piece = 0;
		x->it_head_sent = false;
	}
	for (;;) {
		if (x->it_point >= x->npts) {
			buf_puts(&s->reply, "l");
			return 0;
		}
		p = &x->pts[x->it_point];
		if (!x->it_head_sent) {
			x->it_head_sent = true;
			tp_put_point(&s->reply, p);
			return 0;
		}
		if (x->it_piece < p->npieces)
			break;
		x->it_point++;
		x->it_piece = 0;
		x->it_head_sent = false;
	}
	pc = &p->pieces[x->it_piece++];
	tp_put_piece(&s->reply, p, pc);
	return 0;
}

static int handle_qtv_list(struct gdb_session *s, struct tp_exp *x, bool first)
{
	struct tp_tsv *v;

	if (first)
		x->it_tsv = 0;
	if (x->it_tsv >= x->ntsvs) {
		buf_puts(&s->reply, "l");
		return 0;
	}
	/* newest first, as gdbserver lists them: gdb creates them in the reverse order */
	v = &x->tsvs[x->ntsvs - 1 - x->it_tsv++];
	tp_put_tsv(&s->reply, v);
	return 0;
}

/* Every QT and qT packet but qTStatus, by name. */
int gdb_handle_tp(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = p;
	struct tp_exp *x = tp_of(s, true);
	int err;

	if (!x && len == 4 && p[0] == 'q' && p[1] == 'T') {
		/* the uploads at connect, before any process: an empty list (gdb loops on errors)
		 */
		buf_puts(&s->reply, "l");
		return 0;
	}
	if (!x)
		return s->engine ? -ENOMEM : -ESRCH;
	if (lit(&q, end, "QTinit") && q == end) {
		tp_reset(x);
		s->tframe = -1;
		buf_puts(&s->reply, "OK");
		return 0;
	}
	q = p;
	if (lit(&q, end, "QTDPsrc:"))
		return handle_qtdpsrc(s, x, q, end);
	if (lit(&q, end, "QTDP:"))
		return handle_qtdp(s, x, q, end);
	if (lit(&q, end, "QTDV:"))
		return handle_qtdv(s, x, q, end);
	if (lit(&q, end, "QTro"))
		return handle_qtro(s, x, q, end);
	if (lit(&q, end, "QTEnable:"))
		return handle_qtenable(s, x, q, end, true);
	if (lit(&q, end, "QTDisable:"))
		return handle_qtenable(s, x, q, end, false);
	if (lit(&q, end, "QTStart") && q == end) {
		if (x->running)
			return -EBUSY;
		s->tframe = -1;
		err = tp_start(x, s);
		if (!err)
			buf_puts(&s->reply, "OK");
		return err;
	}
	if (lit(&q, end, "QTStop") && q == end) {
		tp_fast_drain(x); /* the agent's frames of hits before the stop */
		tp_stop(x, "tstop", 0);
		tp_settle(x);
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (lit(&q, end, "QTDisconnected:")) {
		uint64_t v;

		if (hex_field(&q, end, &v) || q != end)
			return -EINVAL;
		x->disconn_ok = v != 0;
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (lit(&q, end, "QTFrame:")) {
		tp_fast_drain(x);
		return handle_qtframe(s, x, q, end);
	}
	if (lit(&q, end, "qTMinFTPILen") && q == end) {
		/* any: the jmp covers several instructions where it may, else the tracepoint traps
		 */
		buf_puts(&s->reply, "1");
		return 0;
	}
	if (lit(&q, end, "QTBuffer:"))
		return handle_qtbuffer(s, x, q, end);
	if (lit(&q, end, "QTNotes:"))
		return handle_qtnotes(s, x, q, end);
	if (lit(&q, end, "qTBuffer:"))
		return handle_qtbuffer_read(s, x, q, end);
	if (lit(&q, end, "QTSave:"))
		return gdb_tp_save(s, x, q, end);
	if (lit(&q, end, "qTP:"))
		return handle_qtp(s, x, q, end);
	if (lit(&q, end, "qTV:"))
		return handle_qtv(s, x, q, end);
	if ((lit(&q, end, "qTfP") || lit(&q, end, "qTsP")) && q == end)
		return handle_qtp_list(s, x, p[2] == 'f');
	if ((lit(&q, end, "qTfV") || lit(&q, end, "qTsV")) && q == end)
		return handle_qtv_list(s, x, p[2] == 'f');
	return 0; /* not one of ours: "not supported" */
}
