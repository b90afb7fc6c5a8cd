/*
 * gdb_break.c: Z and z: software and hardware breakpoints, watchpoints.
 *
 * "Ztype,addr,kind" with an optional ";X..." tail: the breakpoint's
 * conditions as agent bytecode (ConditionalBreakpoints), kept and
 * evaluated at each hit by gdb_cond.c.
 */
#include "gdb_int.h"

#include <errno.h>

static const enum engine_bp_type z_types[] = {
	ENGINE_BP_SW, ENGINE_BP_HW, ENGINE_BP_WRITE, ENGINE_BP_READ, ENGINE_BP_ACCESS,
};

int gdb_handle_z(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	uint64_t type, addr, kind;
	int err;

	if (rsp_parse_hex(&q, end, &type) < 0 || q >= end || *q++ != ',')
		return -EINVAL;
	if (gdb_parse_addr_len(&q, end, &addr, &kind) < 0 || (q != end && *q != ';'))
		return -EINVAL;
	if (type >= sizeof(z_types) / sizeof(z_types[0]))
		return 0; /* not supported: empty reply */
	if (kind == 0 || kind > 0x10000)
		return -EINVAL;
	if (p[0] == 'Z')
		err = engine_bp_insert(s->engine, z_types[type], addr, (int)kind);
	else
		err = engine_bp_remove(s->engine, z_types[type], addr, (int)kind);
	if (type <= 1 && (p[0] == 'z' || !err)) {
		if (p[0] == 'Z' && gdb_cond_set(s, engine_pid(s->engine), (int)type, addr, q,
						(size_t)(end - q)) < 0)
			gdb_cond_clear(s, engine_pid(s->engine), (int)type,
				       addr); /* gdb evaluates */
		else if (p[0] == 'z')
			gdb_cond_clear(s, engine_pid(s->engine), (int)type, addr);
		if (p[0] == 'Z' && type == 0)
			gdb_cond_to_engine(s, engine_pid(s->engine), addr);
	}
	if (err == -EOPNOTSUPP)
		return 0; /* not on this target: empty reply */
	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}
