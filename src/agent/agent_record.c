/*
 * agent_record.c: reading a printf record of the in-process agent (struct
 * agent_out_rec, agent_inproc.h) back out of a thread's ring.
 *
 * The ring is the traced program's memory: the program can write over it
 * at any time, so a record is read as hostile input. Every length and
 * index is checked against the bytes there are; what does not fit is
 * -EINVAL, and the caller drops the rest of that ring's batch.
 */
#include "agent.h"
#include "agent_inproc.h"

#include <errno.h>
#include <string.h>

int agent_record_parse(const uint8_t *rec, size_t len, struct agent_record *out)
{
	struct agent_out_rec h;
	size_t off;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	off = sizeof(h) + 8 * (size_t)h.nargs;
	if (h.len != len || off > len || h.nstr > h.nargs || h.nstr > AGENT_RECORD_STRS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->args, rec + sizeof(h), 8 * (size_t)h.nargs);
	for (unsigned i = 0; i < h.nstr; i++) {
		uint16_t n;

		if (len - off < 4)
			return -EINVAL;
		memcpy(&n, rec + off, 2);
		if (rec[off + 2] >= h.nargs || len - off - 4 < n)
			return -EINVAL;
		out->strs[i] = (struct agent_record_str){out->args[rec[off + 2]],
							 (const char *)rec + off + 4, n};
		off += 4 + n;
	}
	out->bp = h.bp;
	out->cmd = h.cmd;
	out->fmt_pc = h.fmt_pc;
	out->nargs = h.nargs;
	out->nstrs = h.nstr;
	return 0;
}

int agent_trace_parse(const uint8_t *rec, size_t len, struct agent_trace_record *out)
{
	struct agent_trace_rec h;
	struct agent_trace_regs r;
	size_t off = sizeof(h), end;

	_Static_assert(sizeof(r) == sizeof(out->regs), "the agent's register block");
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.len != len || h.kind != AGENT_REC_TRACE)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (off < len && rec[off] == 'R') {
		if (len - off - 1 < sizeof(r))
			return -EINVAL;
		memcpy(out->regs, rec + off + 1, sizeof(r));
		out->has_regs = true;
		off += 1 + sizeof(r);
	}
	if (out->has_regs && len - off >= 5 && rec[off] == 'x') { /* 'x' u16 pad, u16 len */
		size_t pad = (size_t)rec[off + 1] | (size_t)rec[off + 2] << 8;
		size_t n = (size_t)rec[off + 3] | (size_t)rec[off + 4] << 8;

		if (len - off - 5 < pad || len - off - 5 - pad < n)
			return -EINVAL;
		out->fp = rec + off + 5 + pad;
		out->fp_len = n;
		off += 5 + pad + n;
	}
	out->mem = rec + off;
	/* 'M' blocks up to the padding (zero to 7 bytes, never an 'M' block's start) */
	for (end = off; len - end >= 11 && rec[end] == 'M';) {
		uint16_t n;

		memcpy(&n, rec + end + 9, 2);
		if (len - end - 11 < n)
			return -EINVAL;
		end += 11 + (size_t)n;
	}
	if (len - end > 7)
		return -EINVAL;
	out->mem_len = end - off;
	out->bp = h.bp;
	out->tpnum = h.tpnum;
	out->reserved = h.reserved;
	out->seq = h.seq;
	return 0;
}

/* Replay: the record, and where the text goes. */
struct replay {
	const struct agent_record *r;
	const struct agent_env *out;
};

static int replay_read_str(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct agent_record *r = ((const struct replay *)ctx)->r;

	for (size_t i = 0; i < r->nstrs; i++) {
		uint64_t base = r->strs[i].addr, n = r->strs[i].len;

		if (addr < base || addr - base > n || len > n + 1 - (addr - base))
			continue;
		memcpy(buf, r->strs[i].s + (addr - base), len);
		if (addr - base + len == n + 1)
			((char *)buf)[len - 1] = '\0';
		return 0;
	}
	return -EIO;
}

static int replay_print(void *ctx, const char *text, size_t len)
{
	const struct agent_env *out = ((const struct replay *)ctx)->out;

	return out->print(out->ctx, text, len);
}

int agent_record_replay(const uint8_t *code, size_t len, const struct agent_record *r,
			const struct agent_env *env)
{
	struct replay rp = {.r = r, .out = env};
	struct agent_env renv = {.ctx = &rp, .read_mem = replay_read_str, .print = replay_print};

	if (!env || !env->print)
		return -EOPNOTSUPP;
	return agent_printf_replay(code, len, r->fmt_pc, r->args, r->nargs, &renv);
}
