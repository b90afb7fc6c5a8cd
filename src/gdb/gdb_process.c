/*
 * gdb_process.c: leaving a process: D (detach), k and vKill.
 */
#include "gdb_int.h"

#include <errno.h>
#include <string.h>

int gdb_handle_detach(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	pid_t pid = engine_pid(s->engine);
	uint64_t want;

	if (q < end) {
		if (*q++ != ';' || rsp_parse_hex(&q, end, &want) < 0 || q != end)
			return -EINVAL;
		if (want != (uint64_t)pid)
			return -ESRCH;
	}
	engine_detach(s->engine);
	s->engine = NULL;
	s->have_last = false;
	s->detached = true;
	buf_puts(&s->reply, "OK");
	if (s->server && s->server->on_detach && !s->secondary)
		s->server->on_detach(s, pid);
	return 0;
}

int gdb_kill_process(struct gdb_session *s)
{
	if (!s->engine)
		return 0;
	engine_kill(s->engine);
	engine_detach(s->engine);
	s->engine = NULL;
	s->have_last = false;
	s->killed = true;
	return 0;
}

int gdb_handle_kill(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	gdb_kill_process(s);
	return GDB_NO_REPLY; /* gdb does not wait for one */
}

int gdb_handle_vkill(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + strlen("vKill"), *end = p + len;
	uint64_t pid;

	if (q >= end || *q++ != ';' || rsp_parse_hex(&q, end, &pid) < 0 || q != end)
		return -EINVAL;
	if (!s->engine || pid != (uint64_t)engine_pid(s->engine))
		return -ESRCH;
	gdb_kill_process(s);
	buf_puts(&s->reply, "OK");
	return 0;
}
