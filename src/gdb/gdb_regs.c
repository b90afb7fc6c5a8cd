/*
 * gdb_regs.c: register packets g, G, p, P.
 *
 * Generic loops over the arch register table: the layout of each register
 * in the kernel's structures is arch/x86's business.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdlib.h>

static int current_regs(struct gdb_session *s, pid_t *tid, struct arch_regs **r)
{
	if (s->tframe >= 0) /* G, P: a trace frame is not written */
		return -EIO;
	*tid = gdb_current_tid(s);
	return engine_regs(s->engine, *tid, r);
}

/*
 * A thread that died while the process is stopped (gone since gdb listed
 * it, or on its way out, or its whole process killed before gdb heard of
 * the death) has no registers to read: they are unavailable ('x'), as
 * gdbserver answers (it ignores ESRCH there), not an error: gdb reads the
 * pc before it resumes, and an E03 would keep it from ever resuming the
 * process to hear its death (gdb.multi/multi-kill.exp, killed_outside.t).
 */
static bool regs_unavailable(struct gdb_session *s, int err)
{
	if (err == -ESRCH)
		return true;
	return err == -EBUSY && engine_alive(s->engine) && !engine_nonstop(s->engine);
}

static void put_unavailable(struct buf *b, size_t bytes)
{
	for (size_t i = 0; i < 2 * bytes; i++)
		buf_putc(b, 'x');
}

int gdb_handle_g(struct gdb_session *s, const char *p, size_t len)
{
	const struct arch_desc *d = engine_arch(s->engine);
	struct arch_regs *r;
	uint8_t val[64];
	pid_t tid;
	int err = gdb_tp_regs(s, -1);

	(void)p;
	(void)len;
	if (err)
		return err < 0 ? err : 0;
	err = current_regs(s, &tid, &r);
	if (err && regs_unavailable(s, err)) {
		put_unavailable(&s->reply, d->g_size);
		return 0;
	}
	if (err)
		return err;
	for (int i = 0; i < d->nregs; i++) {
		if (arch_reg_read(d, r, i, val) < 0)
			return -EIO;
		buf_hex(&s->reply, val, d->regs[i].size);
	}
	return 0;
}

int gdb_handle_G(struct gdb_session *s, const char *p, size_t len)
{
	const struct arch_desc *d = engine_arch(s->engine);
	const char *hex = p + 1;
	struct arch_regs *r;
	unsigned touched = 0;
	uint8_t val[64];
	pid_t tid;
	int err;

	if (len - 1 != 2 * d->g_size)
		return -EINVAL;
	err = current_regs(s, &tid, &r);
	if (err)
		return err;
	for (int i = 0; i < d->nregs; i++) {
		size_t n = d->regs[i].size;
		int w;

		if (rsp_hex_decode(hex, 2 * n, val, n) < 0)
			return -EINVAL;
		hex += 2 * n;
		w = arch_reg_write(d, r, i, val);
		if (w < 0)
			return -EINVAL;
		touched |= (unsigned)w;
	}
	err = engine_regs_store(s->engine, tid, touched);
	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}

/* "NN" or "NN=VALUE": the register number, checked against the table. */
static int parse_regno(const struct arch_desc *d, const char **q, const char *end)
{
	uint64_t n;

	if (rsp_parse_hex(q, end, &n) < 0 || n >= (uint64_t)d->nregs)
		return -EINVAL;
	return (int)n;
}

int gdb_handle_p(struct gdb_session *s, const char *p, size_t len)
{
	const struct arch_desc *d = engine_arch(s->engine);
	const char *q = p + 1, *end = p + len;
	struct arch_regs *r;
	uint8_t val[64];
	pid_t tid;
	int n = parse_regno(d, &q, end), err;

	if (n < 0 || q != end)
		return -EINVAL;
	err = gdb_tp_regs(s, n);
	if (err)
		return err < 0 ? err : 0;
	err = current_regs(s, &tid, &r);
	if (err && regs_unavailable(s, err)) {
		put_unavailable(&s->reply, d->regs[n].size);
		return 0;
	}
	if (err)
		return err;
	if (arch_reg_read(d, r, n, val) < 0)
		return -EIO;
	buf_hex(&s->reply, val, d->regs[n].size);
	return 0;
}

int gdb_handle_P(struct gdb_session *s, const char *p, size_t len)
{
	const struct arch_desc *d = engine_arch(s->engine);
	const char *q = p + 1, *end = p + len;
	struct arch_regs *r;
	uint8_t val[64];
	pid_t tid;
	int n = parse_regno(d, &q, end), w, err;

	if (n < 0 || q >= end || *q++ != '=')
		return -EINVAL;
	if ((size_t)(end - q) != 2u * d->regs[n].size ||
	    rsp_hex_decode(q, (size_t)(end - q), val, d->regs[n].size) < 0)
		return -EINVAL;
	err = current_regs(s, &tid, &r);
	if (err)
		return err;
	w = arch_reg_write(d, r, n, val);
	if (w < 0)
		return -EINVAL;
	err = engine_regs_store(s->engine, tid, (unsigned)w);
	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}
