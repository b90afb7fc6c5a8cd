/*
 * gdb_dispatch.c: the table of every packet utraced understands.
 *
 * One line per packet: how its name matches, the handler, whether it needs
 * a process, and the qSupported feature it implies. qSupported is built
 * from this table, so what is advertised is exactly what is handled. Order
 * matters only where one name is a prefix of another (the longer first);
 * a unit test checks that no entry is shadowed.
 */
#include "gdb_int.h"

#include <string.h>

const struct gdb_packet gdb_packets[] = {
	/* connection and capabilities (gdb_query.c) */
	{ "qSupported", GDB_PARAM, gdb_handle_qsupported, false, NULL },
	{ "QStartNoAckMode", GDB_EXACT, gdb_handle_noack, false, "QStartNoAckMode+" },
	{ "QPassSignals", GDB_PARAM, gdb_handle_pass_signals, false, "QPassSignals+" },
	{ "QProgramSignals", GDB_PARAM, gdb_handle_program_signals, false, "QProgramSignals+" },
	{ "qSymbol", GDB_PARAM, gdb_handle_qsymbol, false, NULL },
	{ "qAttached", GDB_PARAM, gdb_handle_qattached, true, NULL },
	/* threads (gdb_thread.c) */
	{ "qfThreadInfo", GDB_EXACT, gdb_handle_qfthreadinfo, false, NULL },
	{ "qsThreadInfo", GDB_EXACT, gdb_handle_qsthreadinfo, false, NULL },
	{ "qC", GDB_EXACT, gdb_handle_qc, true, NULL },
	{ "H", GDB_PREFIX, gdb_handle_h, false, NULL },
	{ "T", GDB_PREFIX, gdb_handle_t, true, NULL },
	/* object transfers (gdb_xfer.c) */
	{ "qXfer:features:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:features:read+" },
	{ "qXfer:auxv:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:auxv:read+" },
	{ "qXfer:exec-file:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:exec-file:read+" },
	{ "qXfer:threads:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:threads:read+" },
	{ "qXfer:libraries-svr4:read", GDB_PARAM, gdb_handle_xfer, true,
	  "qXfer:libraries-svr4:read+;augmented-libraries-svr4-read+" },
	{ "qXfer:siginfo:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:siginfo:read+" },
	{ "qXfer:siginfo:write", GDB_PARAM, gdb_handle_xfer_write, true,
	  "qXfer:siginfo:write+" },
	/* registers (gdb_regs.c) */
	{ "g", GDB_EXACT, gdb_handle_g, true, NULL },
	{ "G", GDB_PREFIX, gdb_handle_G, true, NULL },
	{ "p", GDB_PREFIX, gdb_handle_p, true, NULL },
	{ "P", GDB_PREFIX, gdb_handle_P, true, NULL },
	/* memory (gdb_mem.c) */
	{ "m", GDB_PREFIX, gdb_handle_m, true, NULL },
	{ "M", GDB_PREFIX, gdb_handle_M, true, NULL },
	{ "X", GDB_PREFIX, gdb_handle_X, true, NULL },
	/* breakpoints (gdb_break.c) */
	{ "Z", GDB_PREFIX, gdb_handle_z, true, "swbreak+;hwbreak+" },
	{ "z", GDB_PREFIX, gdb_handle_z, true, NULL },
	/* execution (gdb_resume.c) */
	{ "?", GDB_EXACT, gdb_handle_question, false, NULL },
	{ "vCont?", GDB_EXACT, gdb_handle_vcont_query, true, NULL },
	{ "vCont", GDB_PARAM, gdb_handle_vcont, true, "vContSupported+" },
	{ "vCtrlC", GDB_EXACT, gdb_handle_vctrlc, true, NULL },
	{ "c", GDB_PREFIX, gdb_handle_c, true, NULL },
	{ "C", GDB_PREFIX, gdb_handle_c, true, NULL },
	{ "s", GDB_PREFIX, gdb_handle_c, true, NULL },
	{ "S", GDB_PREFIX, gdb_handle_c, true, NULL },
	/* process (gdb_process.c) */
	{ "D", GDB_PARAM, gdb_handle_detach, true, NULL },
	{ "k", GDB_EXACT, gdb_handle_kill, false, NULL },
	{ "vKill", GDB_PARAM, gdb_handle_vkill, false, NULL },
	/* host files (gdb_vfile.c) */
	{ "vFile:", GDB_PREFIX, gdb_handle_vfile, false, NULL },
};

const size_t gdb_npackets = sizeof(gdb_packets) / sizeof(gdb_packets[0]);

static bool packet_matches(const struct gdb_packet *gp, const char *payload, size_t len)
{
	size_t n = strlen(gp->name);

	if (len < n || memcmp(payload, gp->name, n) != 0)
		return false;
	switch (gp->match) {
	case GDB_EXACT:
		return len == n;
	case GDB_PARAM:
		return len == n || strchr(":;,", payload[n]);
	default:
		return true;
	}
}

const struct gdb_packet *gdb_packet_find(const char *payload, size_t len)
{
	for (size_t i = 0; i < gdb_npackets; i++)
		if (packet_matches(&gdb_packets[i], payload, len))
			return &gdb_packets[i];
	return NULL;
}

void gdb_put_features(struct gdb_session *s, struct buf *b)
{
	(void)s;
	buf_printf(b, "PacketSize=%x;multiprocess+", RSP_MAX_PACKET);
	for (size_t i = 0; i < gdb_npackets; i++)
		if (gdb_packets[i].feature)
			buf_printf(b, ";%s", gdb_packets[i].feature);
}
