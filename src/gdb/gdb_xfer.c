/*
 * gdb_xfer.c: qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH and siginfo writes.
 *
 * Each object is generated whole when gdb asks for offset 0 and kept
 * (s->xfer, this file's) while gdb reads it in chunks, so a document that
 * changes between two chunks (a thread list) is never torn.
 */
#include "gdb_int.h"
#include "../util/xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The object being read, and which one it is ("OBJECT:ANNEX"). */
struct gdb_xfer {
	struct buf cache;
	char key[320];
};

static int threads_of(struct gdb_session *s, struct engine *e, struct buf *b)
{
	pid_t *tids;
	size_t n = gdb_proc_threads(s, e, &tids);
	char name[64];

	if (!tids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, "<thread id=\"");
		gdb_put_ptid(s, b, engine_pid(e), tids[i]);
		buf_putc(b, '"');
		if (engine_thread_name(e, tids[i], name, sizeof(name)) == 0) {
			buf_puts(b, " name=\"");
			xml_escape(b, name);
			buf_putc(b, '"');
		}
		buf_puts(b, "/>\n");
	}
	free(tids);
	return 0;
}

static int threads_xml(struct gdb_session *s, struct buf *b)
{
	int err = 0;

	buf_puts(b, "<?xml version=\"1.0\"?>\n<threads>\n");
	for (size_t i = 0; i < s->nprocs && !err; i++)
		err = threads_of(s, s->procs[i].e, b);
	buf_puts(b, "</threads>\n");
	return err;
}

static int proc_file(struct gdb_session *s, const char *name, struct buf *b)
{
	size_t len;
	char *data;
	int err = engine_proc_read(s->engine, name, &data, &len);

	if (err)
		return err;
	buf_append(b, data, len);
	free(data);
	return 0;
}

static int exec_file(struct gdb_session *s, const char *annex, struct buf *b)
{
	struct engine *e = s->engine;
	char path[4096];
	int err;

	if (*annex) {
		struct gdb_proc *pr = gdb_proc_of(s, (pid_t)strtol(annex, NULL, 16));

		if (!pr)
			return -ESRCH;
		e = pr->e;
	}
	err = engine_exe_path(e, path, sizeof(path));
	if (!err)
		buf_puts(b, path);
	return err;
}

static int siginfo(struct gdb_session *s, struct buf *b)
{
	uint8_t out[ARCH_SIGINFO_SIZE];
	siginfo_t si;
	int err = engine_siginfo_get(s->engine, gdb_current_tid(s), &si);

	if (err)
		return err;
	arch_siginfo_out(engine_arch(s->engine), &si, out);
	buf_append(b, out, sizeof(out));
	return 0;
}

static int generate(struct gdb_session *s, const char *object, const char *annex)
{
	struct buf *b = &s->xfer->cache;
	const char *xml;

	buf_reset(b);
	if (!strcmp(object, "features")) {
		xml = arch_tdesc_xml(engine_arch(s->engine), annex);
		if (!xml)
			return -ENOENT;
		buf_puts(b, xml);
		return 0;
	}
	if (!strcmp(object, "auxv"))
		return proc_file(s, "auxv", b);
	if (!strcmp(object, "exec-file"))
		return exec_file(s, annex, b);
	if (!strcmp(object, "threads"))
		return threads_xml(s, b);
	if (!strcmp(object, "libraries-svr4"))
		return gdb_libraries_svr4_xml(s->engine, annex, b);
	if (!strcmp(object, "siginfo"))
		return siginfo(s, b);
	if (!strcmp(object, "osdata"))
		return gdb_osdata_xml(annex, b);
	if (!strcmp(object, "traceframe-info"))
		return gdb_tp_frame_info(s, b);
	return -EINVAL;
}

void gdb_xfer_slice(struct gdb_session *s, const char *obj, size_t objlen, uint64_t off,
		    uint64_t len)
{
	size_t max = RSP_MAX_PACKET - 8;

	if (off >= objlen) {
		buf_putc(&s->reply, 'l');
		return;
	}
	if (len > max)
		len = max;
	if (len > objlen - off)
		len = objlen - off;
	buf_putc(&s->reply, off + len < objlen ? 'm' : 'l');
	buf_append(&s->reply, obj + off, (size_t)len);
}

/*
 * Split "qXfer:OBJ:read:ANNEX:OFF,LEN" into its parts (copied, bounded).
 * Returns the position after ANNEX's ':' or NULL.
 */
static const char *split_xfer(const char *p, const char *end, char *object, size_t olen,
			      char *annex, size_t alen, const char *op)
{
	const char *q = p + strlen("qXfer:"), *c;
	size_t n;

	c = memchr(q, ':', (size_t)(end - q));
	if (!c || (n = (size_t)(c - q)) >= olen)
		return NULL;
	memcpy(object, q, n);
	object[n] = '\0';
	q = c + 1;
	n = strlen(op);
	if ((size_t)(end - q) < n + 1 || memcmp(q, op, n) || q[n] != ':')
		return NULL;
	q += n + 1;
	c = memchr(q, ':', (size_t)(end - q));
	if (!c || (n = (size_t)(c - q)) >= alen || memchr(q, '\0', n))
		return NULL;
	memcpy(annex, q, n);
	annex[n] = '\0';
	return c + 1;
}

void gdb_xfer_free(struct gdb_session *s)
{
	if (s->xfer)
		buf_free(&s->xfer->cache);
	free(s->xfer);
	s->xfer = NULL;
}

int gdb_handle_xfer(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q;
	char object[32], annex[256], key[sizeof(s->xfer->key)];
	struct gdb_xfer *x;
	uint64_t off, n;
	int err;

	q = split_xfer(p, end, object, sizeof(object), annex, sizeof(annex), "read");
	if (!q || gdb_parse_addr_len(&q, end, &off, &n) < 0 || q != end)
		return -EINVAL;
	if (!s->xfer) {
		s->xfer = calloc(1, sizeof(*s->xfer));
		if (!s->xfer)
			return -ENOMEM;
		buf_init(&s->xfer->cache);
	}
	x = s->xfer;
	snprintf(key, sizeof(key), "%s:%s", object, annex);
	if (off == 0 || strcmp(key, x->key) != 0) {
		x->key[0] = '\0';
		err = generate(s, object, annex);
		if (err)
			return err;
		memcpy(x->key, key, sizeof(key));
	}
	gdb_xfer_slice(s, x->cache.data ? x->cache.data : "", x->cache.len, off, n);
	return 0;
}

/* qXfer:siginfo:write::OFFSET:DATA (binary) */
int gdb_handle_xfer_write(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q;
	char object[32], annex[8];
	pid_t tid = gdb_current_tid(s);
	uint8_t image[ARCH_SIGINFO_SIZE];
	uint64_t off;
	siginfo_t si;
	int err;

	q = split_xfer(p, end, object, sizeof(object), annex, sizeof(annex), "write");
	if (!q || strcmp(object, "siginfo") || rsp_parse_hex(&q, end, &off) < 0 || q >= end ||
	    *q++ != ':')
		return -EINVAL;
	if (off > sizeof(image) || (size_t)(end - q) > sizeof(image) - off)
		return -EINVAL;
	err = engine_siginfo_get(s->engine, tid, &si);
	if (err)
		return err;
	/* gdb writes in the inferior's layout: patch that image, then convert back */
	arch_siginfo_out(engine_arch(s->engine), &si, image);
	memcpy(image + off, q, (size_t)(end - q));
	arch_siginfo_in(engine_arch(s->engine), image, &si);
	err = engine_siginfo_set(s->engine, tid, &si);
	if (err)
		return err;
	buf_printf(&s->reply, "%zx", (size_t)(end - q));
	return 0;
}
