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
	{"qSupported", GDB_PARAM, gdb_handle_qsupported, false, NULL, 0},
	{"QStartNoAckMode", GDB_EXACT, gdb_handle_noack, false, "QStartNoAckMode+", 0},
	{"QPassSignals", GDB_PARAM, gdb_handle_pass_signals, false, "QPassSignals+", 0},
	{"QProgramSignals", GDB_PARAM, gdb_handle_program_signals, false, "QProgramSignals+", 0},
	{"QCatchSyscalls", GDB_PARAM, gdb_handle_catch_syscalls, false, "QCatchSyscalls+", 0},
	{"QThreadEvents", GDB_PARAM, gdb_handle_thread_events, false, "QThreadEvents+", 0},
	{"qSymbol", GDB_PARAM, gdb_handle_qsymbol, false, NULL, 0},
	{"qGetTLSAddr", GDB_PARAM, gdb_handle_qgettlsaddr, true, NULL, 0},
	{"qAttached", GDB_PARAM, gdb_handle_qattached, true, NULL, 0},
	{"qRcmd", GDB_PARAM, gdb_handle_qrcmd, false, NULL, 0},
	/* threads (gdb_thread.c) */
	{"qfThreadInfo", GDB_EXACT, gdb_handle_qfthreadinfo, false, NULL, GDB_DISABLE_QFTHREADINFO},
	{"qsThreadInfo", GDB_EXACT, gdb_handle_qsthreadinfo, false, NULL, GDB_DISABLE_QFTHREADINFO},
	{"qC", GDB_EXACT, gdb_handle_qc, true, NULL, GDB_DISABLE_QC},
	{"H", GDB_PREFIX, gdb_handle_h, false, NULL, 0},
	{"T", GDB_PREFIX, gdb_handle_t, true, NULL, 0},
	/* object transfers (gdb_xfer.c) */
	{"qXfer:features:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:features:read+", 0},
	{"qXfer:auxv:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:auxv:read+", 0},
	{"qXfer:exec-file:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:exec-file:read+", 0},
	{"qXfer:threads:read", GDB_PARAM, gdb_handle_xfer, false, "qXfer:threads:read+", 0},
	{"qXfer:libraries-svr4:read", GDB_PARAM, gdb_handle_xfer, true,
	 "qXfer:libraries-svr4:read+;augmented-libraries-svr4-read+", 0},
	{"qXfer:siginfo:read", GDB_PARAM, gdb_handle_xfer, true, "qXfer:siginfo:read+", 0},
	{"qXfer:siginfo:write", GDB_PARAM, gdb_handle_xfer_write, true, "qXfer:siginfo:write+", 0},
	{"qXfer:osdata:read", GDB_PARAM, gdb_handle_xfer, false, "qXfer:osdata:read+", 0},
	{"qXfer:traceframe-info:read", GDB_PARAM, gdb_handle_xfer, true,
	 "qXfer:traceframe-info:read+", 0},
	/* registers (gdb_regs.c) */
	{"g", GDB_EXACT, gdb_handle_g, true, NULL, 0},
	{"G", GDB_PREFIX, gdb_handle_G, true, NULL, 0},
	{"p", GDB_PREFIX, gdb_handle_p, true, NULL, 0},
	{"P", GDB_PREFIX, gdb_handle_P, true, NULL, 0},
	/* memory (gdb_mem.c) */
	{"m", GDB_PREFIX, gdb_handle_m, true, NULL, 0},
	{"M", GDB_PREFIX, gdb_handle_M, true, NULL, 0},
	{"X", GDB_PREFIX, gdb_handle_X, true, NULL, 0},
	/* breakpoints (gdb_break.c) */
	{"Z", GDB_PREFIX, gdb_handle_z, true,
	 "swbreak+;hwbreak+;ConditionalBreakpoints+;BreakpointCommands+", 0},
	{"z", GDB_PREFIX, gdb_handle_z, true, NULL, 0},
	/* execution (gdb_resume.c) */
	{"?", GDB_EXACT, gdb_handle_question, false, NULL, 0},
	{"vCont?", GDB_EXACT, gdb_handle_vcont_query, false, NULL, GDB_DISABLE_VCONT},
	{"vCont", GDB_PARAM, gdb_handle_vcont, false, "vContSupported+", GDB_DISABLE_VCONT},
	{"vCtrlC", GDB_EXACT, gdb_handle_vctrlc, true, NULL, 0},
	{"vStopped", GDB_EXACT, gdb_handle_vstopped, false, NULL, 0},
	{"QNonStop", GDB_PARAM, gdb_handle_qnonstop, false, "QNonStop+", 0},
	{"c", GDB_PREFIX, gdb_handle_c, true, NULL, 0},
	{"C", GDB_PREFIX, gdb_handle_c, true, NULL, 0},
	{"s", GDB_PREFIX, gdb_handle_c, true, NULL, 0},
	{"S", GDB_PREFIX, gdb_handle_c, true, NULL, 0},
	/* process (gdb_process.c) */
	{"D", GDB_PARAM, gdb_handle_detach, true, NULL, 0},
	{"k", GDB_EXACT, gdb_handle_kill, false, NULL, 0},
	{"vKill", GDB_PARAM, gdb_handle_vkill, false, NULL, 0},
	/* extended remote (gdb_extended.c) */
	{"!", GDB_EXACT, gdb_handle_extended, false, NULL, 0},
	{"R", GDB_PREFIX, gdb_handle_restart, false, NULL, 0},
	{"vRun", GDB_PARAM, gdb_handle_vrun, false, NULL, 0},
	{"vAttach", GDB_PARAM, gdb_handle_vattach, false, NULL, 0},
	{"QEnvironmentReset", GDB_EXACT, gdb_handle_run_setting, false, "QEnvironmentReset+", 0},
	{"QEnvironmentHexEncoded", GDB_PARAM, gdb_handle_run_setting, false,
	 "QEnvironmentHexEncoded+", 0},
	{"QEnvironmentUnset", GDB_PARAM, gdb_handle_run_setting, false, "QEnvironmentUnset+", 0},
	{"QSetWorkingDir", GDB_PARAM, gdb_handle_run_setting, false, "QSetWorkingDir+", 0},
	{"QDisableRandomization", GDB_PARAM, gdb_handle_run_setting, false,
	 "QDisableRandomization+", 0},
	{"QStartupWithShell", GDB_PARAM, gdb_handle_run_setting, false, "QStartupWithShell+", 0},
	/* host files (gdb_vfile.c) */
	{"vFile:", GDB_PREFIX, gdb_handle_vfile, false, NULL, 0},
	/* tracepoints (gdb_tp_packets.c) */
	{"qTStatus", GDB_EXACT, gdb_handle_qtstatus, false, NULL, 0},
	{"QTinit", GDB_EXACT, gdb_handle_tp, true, NULL, 0},
	{"QTDPsrc", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTDP", GDB_PARAM, gdb_handle_tp, true,
	 "ConditionalTracepoints+;TraceStateVariables+;TracepointSource+;DisconnectedTracing+;"
	 "InstallInTrace+;EnableDisableTracepoints+;QTBuffer:size+;tracenz+",
	 0},
	{"QTDV", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTro", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTEnable", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTDisable", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTStart", GDB_EXACT, gdb_handle_tp, true, NULL, 0},
	{"QTStop", GDB_EXACT, gdb_handle_tp, true, NULL, 0},
	{"QTDisconnected", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTFrame", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTBuffer", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTSave", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"QTNotes", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"qTBuffer", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"qTP", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"qTV", GDB_PARAM, gdb_handle_tp, true, NULL, 0},
	{"qTfP", GDB_EXACT, gdb_handle_tp, false, NULL, 0},
	{"qTsP", GDB_EXACT, gdb_handle_tp, false, NULL, 0},
	{"qTfV", GDB_EXACT, gdb_handle_tp, false, NULL, 0},
	{"qTsV", GDB_EXACT, gdb_handle_tp, false, NULL, 0},
	{"qTMinFTPILen", GDB_EXACT, gdb_handle_tp, true, "FastTracepoints+", 0},
	/* utraced's own: a syscall trace streamed by the daemon (gdb_trace.c) */
	{"Qutraced.trace", GDB_PARAM, gdb_handle_utraced_trace, true, NULL, 0},
	{"Qutraced.detach", GDB_EXACT, gdb_handle_utraced_detach, false, NULL, 0},
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

bool gdb_packet_disabled(const struct gdb_session *s, const struct gdb_packet *gp)
{
	return s->server && (s->server->disabled & gp->disable);
}

void gdb_put_features(struct gdb_session *s, struct buf *b)
{
	buf_printf(b, "PacketSize=%x;multiprocess+", RSP_MAX_PACKET);
	for (size_t i = 0; i < gdb_npackets; i++)
		if (gdb_packets[i].feature && !gdb_packet_disabled(s, &gdb_packets[i]))
			buf_printf(b, ";%s", gdb_packets[i].feature);
}
