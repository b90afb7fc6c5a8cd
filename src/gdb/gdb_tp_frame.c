/*
 * gdb_tp_frame.c: what gdb reads while it looks at a trace frame (tfind):
 * memory from the frame's blocks (else, in a QTro range, the program's
 * read-only memory; else an error: not collected), registers from its
 * register block (else unavailable, but the pc: its tracepoint's address,
 * as gdbserver guesses), and qXfer:traceframe-info. Writes are refused.
 */
#include "gdb_tp.h"

#include <errno.h>
#include <string.h>

const uint8_t *tp_frame_data(struct gdb_session *s, size_t *len, unsigned *tpnum)
{
	if (!s->tp || s->tframe < 0)
		return NULL;
	return tps_frame(&s->tp->store, (size_t)s->tframe, tpnum, len);
}

static bool read_only(struct tp_exp *x, uint64_t addr, size_t n)
{
	for (size_t i = 0; i < x->nro; i++)
		if (x->ro[i].lo <= addr && n && addr + n - 1 <= x->ro[i].hi && addr + n - 1 >= addr)
			return true;
	return false;
}

int gdb_tp_read_mem(struct gdb_session *s, uint64_t addr, uint8_t *out, size_t n, size_t *got)
{
	const uint8_t *d;
	size_t len;

	if (s->tframe < 0 || !s->tp)
		return 0;
	d = tp_frame_data(s, &len, NULL);
	if (!d)
		return -EIO;
	*got = tpf_read_mem(d, len, s->tp->arch->g_size, addr, out, n);
	if (*got)
		return 1;
	if (read_only(s->tp, addr, n))
		return 0;
	return -EIO;
}

static void put_reg(struct buf *b, const struct arch_desc *d, const uint8_t *block, int regno,
		    uint64_t pc_guess)
{
	size_t off = 0, n = d->regs[regno].size;

	for (int i = 0; i < regno; i++)
		off += d->regs[i].size;
	if (block) {
		buf_hex(b, block + off, n);
		return;
	}
	if (regno == d->pc_regno) {
		uint8_t v[64] = {0};

		memcpy(v, &pc_guess, n < 8 ? n : 8);
		buf_hex(b, v, n);
		return;
	}
	for (size_t i = 0; i < 2 * n; i++)
		buf_putc(b, 'x');
}

int gdb_tp_regs(struct gdb_session *s, int regno)
{
	const struct arch_desc *d;
	const uint8_t *data, *block;
	uint8_t buf[TPS_REGS_MAX];
	uint64_t pc = 0;
	unsigned tpnum = 0;
	size_t len;

	if (s->tframe < 0 || !s->tp)
		return 0;
	data = tp_frame_data(s, &len, &tpnum);
	if (!data)
		return -EIO;
	d = s->tp->arch;
	if (regno >= d->nregs)
		return -EINVAL;
	block = tps_regs(&s->tp->store, data, len, d->g_size, buf);
	for (size_t i = 0; i < s->tp->npts; i++)
		if (s->tp->pts[i].num == tpnum) {
			pc = s->tp->pts[i].addr;
			break;
		}
	if (regno >= 0) {
		put_reg(&s->reply, d, block, regno, pc);
		return 1;
	}
	for (int i = 0; i < d->nregs; i++)
		put_reg(&s->reply, d, block, i, pc);
	return 1;
}

int gdb_tp_frame_info(struct gdb_session *s, struct buf *b)
{
	const uint8_t *d;
	size_t len;

	d = tp_frame_data(s, &len, NULL);
	if (!d)
		return -EINVAL;
	tpf_info_xml(d, len, s->tp->arch->g_size, b);
	return 0;
}
