/*
 * gdb_detach.c: leaving a process: D (detach), k and vKill.
 */
#include "gdb_int.h"

#include <errno.h>
#include <string.h>

int gdb_handle_detach(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	struct engine *e = s->engine;
	uint64_t want;
	pid_t pid;

	if (q < end) {
		struct gdb_proc *pr;

		if (*q++ != ';' || rsp_parse_hex(&q, end, &want) < 0 || q != end)
			return -EINVAL;
		pr = want <= 0x7fffffff ? gdb_proc_of(s, (pid_t)want) : NULL;
		if (!pr)
			return -ESRCH;
		e = pr->e;
	}
	pid = engine_pid(e);
	gdb_proc_detach(s, e);
	if (!s->engine) {
		s->have_last = false;
		s->detached = true;
	}
	buf_puts(&s->reply, "OK");
	/* a fork child gdb lets go is not the process the server was started for */
	if (s->server && s->server->on_detach && !s->secondary && !s->engine)
		s->server->on_detach(s, pid);
	return 0;
}

int gdb_kill_process(struct gdb_session *s)
{
	if (!s->engine)
		return 0;
	gdb_session_leave(s, true);
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
	if (!s->engine || pid > 0x7fffffff || !gdb_proc_of(s, (pid_t)pid))
		return -ESRCH;
	if (s->nprocs > 1) {
		struct engine *e = gdb_proc_of(s, (pid_t)pid)->e;

		engine_kill(e);
		gdb_proc_detach(s, e);
	} else {
		gdb_kill_process(s);
	}
	buf_puts(&s->reply, "OK");
	return 0;
}
