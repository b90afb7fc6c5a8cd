/*
 * gdb_monitor.c: "monitor CMD" (qRcmd,HEX): gdbserver's monitor commands.
 *
 * Output goes to gdb's console as "O" packets before the final reply.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void monitor_out(struct gdb_session *s, const char *text)
{
	struct buf b;

	buf_init(&b);
	buf_putc(&b, 'O');
	buf_hex(&b, text, strlen(text));
	rsp_send(&s->rsp, b.data, b.len);
	buf_free(&b);
}

static void mon_help(struct gdb_session *s, const char *arg)
{
	(void)arg;
	monitor_out(s, "The following monitor commands are supported:\n"
		       "  set debug <0|1>\n"
		       "    Enable general debugging messages\n"
		       "  set remote-debug <0|1>\n"
		       "    Enable remote protocol debugging messages\n"
		       "  set debug-format option1[,option2,...]\n"
		       "    Add additional information to debugging messages\n"
		       "    Options: all, none\n"
		       "  set libthread-db-search-path PATH\n"
		       "    Accepted for scripts; utraced does not use libthread_db\n"
		       "  utraced stats\n"
		       "    How breakpoints nobody reported were stepped over\n"
		       "  utraced dprintf-to gdb|server\n"
		       "    Agent-style dprintf text to gdb (O packets) or our stdout\n"
		       "  exit\n"
		       "    Quit utraced\n");
}

static void mon_debug(struct gdb_session *s, const char *arg)
{
	s->server->debug = arg[0] == '1';
	monitor_out(s, s->server->debug ? "Debug output enabled.\n" : "Debug output disabled.\n");
}

static void mon_remote_debug(struct gdb_session *s, const char *arg)
{
	s->server->remote_debug = arg[0] == '1';
	monitor_out(s, s->server->remote_debug ? "Protocol debug output enabled.\n"
					       : "Protocol debug output disabled.\n");
}

static void mon_debug_format(struct gdb_session *s, const char *arg)
{
	/* we have no extra formats; accept gdbserver's two keywords */
	if (!strcmp(arg, "all"))
		monitor_out(s, "All extra debug format options enabled.\n");
	else if (!strcmp(arg, "none"))
		monitor_out(s, "All extra debug format options disabled.\n");
	else
		monitor_out(s, "Unknown debug-format argument.\n");
}

/* Threads come from /proc, not libthread_db; the setting is kept for scripts. */
static void mon_thread_db_path(struct gdb_session *s, const char *arg)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "libthread-db-search-path set to `%s'\n", arg);
	monitor_out(s, msg);
}

/* The out-of-line step-over's and the patches' numbers for the current process. */
static void mon_stats(struct gdb_session *s, const char *arg)
{
	struct engine_xol_stats st;
	char msg[1024];

	(void)arg;
	if (!s->engine) {
		monitor_out(s, "No process.\n");
		return;
	}
	engine_xol_stats(s->engine, &st);
	snprintf(msg, sizeof(msg),
		 "step-overs out of line: %lu\n"
		 "step-overs in place: %lu%s%s%s\n"
		 "threads moved back out of a slot or trampoline: %lu\n"
		 "breakpoints patched (conditions in the process): %lu\n"
		 "patched breakpoints removed with their jmp kept: %lu\n"
		 "stop-alls: %lu\n"
		 "breakpoints left as traps: %lu%s%s%s\n"
		 "dprintf lines recorded in the process: %lu%s\n"
		 "dprintf text sent to gdb (O packets): %lu bytes, %lu waits for gdb\n"
		 "fast tracepoints collected in the process: %lu\n"
		 "fast tracepoints left as traps: %lu%s%s%s\n"
		 "trace frames recorded in the process: %lu\n",
		 st.runs, st.inplace, st.last_why ? " (last: " : "", st.last_why ? st.last_why : "",
		 st.last_why ? ")" : "", st.caught, st.patched, st.lazy_removed, st.stop_alls,
		 st.unpatched, st.last_unpatched_why ? " (last: " : "",
		 st.last_unpatched_why ? st.last_unpatched_why : "",
		 st.last_unpatched_why ? ")" : "", st.out_lines,
		 st.out_lost ? " (some unreadable: the program wrote over them)" : "", s->o_bytes,
		 st.out_waits, st.trace_patched, st.trace_unpatched,
		 st.last_trace_unpatched_why ? " (last: " : "",
		 st.last_trace_unpatched_why ? st.last_trace_unpatched_why : "",
		 st.last_trace_unpatched_why ? ")" : "", st.trace_frames);
	monitor_out(s, msg);
}

/*
 * Where this session's agent-style dprintf text goes: gdb's console (O
 * packets, the default) or, as with gdbserver, our standard output; gdb
 * writes O text a byte per write(2), about 10 us a line.
 */
static void mon_dprintf_to(struct gdb_session *s, const char *arg)
{
	if (!strcmp(arg, "gdb") || !strcmp(arg, "server")) {
		s->o_off = arg[0] == 's';
		monitor_out(s, s->o_off ? "dprintf text goes to the server's output.\n"
					: "dprintf text goes to gdb.\n");
		return;
	}
	monitor_out(s, "Usage: monitor utraced dprintf-to gdb|server\n");
}

static void mon_exit(struct gdb_session *s, const char *arg)
{
	(void)arg;
	s->server->exit_requested = true;
}

static const struct {
	const char *cmd; /* the command; a trailing space means an argument follows */
	void (*fn)(struct gdb_session *s, const char *arg);
} monitor_cmds[] = {
	{"help", mon_help},
	{"set debug ", mon_debug},
	{"set remote-debug ", mon_remote_debug},
	{"set debug-format ", mon_debug_format},
	{"set libthread-db-search-path ", mon_thread_db_path},
	{"utraced stats", mon_stats},
	{"utraced dprintf-to ", mon_dprintf_to},
	{"exit", mon_exit},
};

int gdb_handle_qrcmd(struct gdb_session *s, const char *p, size_t len)
{
	const char *hex = p + strlen("qRcmd,");
	size_t n = (len - strlen("qRcmd,")) / 2;
	char cmd[256];

	if (len < strlen("qRcmd,") || n >= sizeof(cmd) ||
	    rsp_hex_decode(hex, len - strlen("qRcmd,"), (uint8_t *)cmd, n) < 0 ||
	    memchr(cmd, '\0', n))
		return -EINVAL;
	cmd[n] = '\0';
	for (size_t i = 0; i < sizeof(monitor_cmds) / sizeof(monitor_cmds[0]); i++) {
		size_t l = strlen(monitor_cmds[i].cmd);
		bool has_arg = monitor_cmds[i].cmd[l - 1] == ' ';

		if (has_arg ? strncmp(cmd, monitor_cmds[i].cmd, l)
			    : strcmp(cmd, monitor_cmds[i].cmd))
			continue;
		monitor_cmds[i].fn(s, cmd + (has_arg ? l : 0));
		buf_puts(&s->reply, "OK");
		return 0;
	}
	monitor_out(s, "Unknown monitor command.\n\n");
	return -EINVAL;
}
