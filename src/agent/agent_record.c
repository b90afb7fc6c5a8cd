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
