/*
 * gdb_tp_save.c: QTSave (gdb's "tsave -r FILE"): the trace experiment
 * written by utraced, at a path on its side, in gdb's own trace file
 * format, which "target tfile FILE" reads back: a header, the register
 * block's size, the target description, the status, the trace state
 * variables and tracepoints as the upload packets describe them, a blank
 * line, then the frames exactly as qTBuffer hands them out (gdb's local
 * "tsave" writes the same from them) and a zero end mark. gdbserver 13
 * has no QTSave.
 *
 * The file is opened with the client's file-system rights (utraced may run
 * as root for everybody) and must be a regular file: a FIFO would block
 * the daemon, which writes the whole file before it answers.
 */
#include "gdb_tp.h"
#include "gdb_handlers.h"
#include "../arch/arch.h"
#include "../rsp/rsp.h"
#include "../util/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* (tps_read_raw goes on from where it stopped: the size of a write only) */
#define SAVE_CHUNK (1u << 20)

/* Each line of the target description, after "tdesc ". */
static void put_tdesc(struct buf *b, const char *xml)
{
	while (xml && *xml) {
		const char *nl = strchr(xml, '\n');
		size_t n = nl ? (size_t)(nl - xml) : strlen(xml);

		buf_puts(b, "tdesc ");
		buf_append(b, xml, n);
		buf_putc(b, '\n');
		xml = nl ? nl + 1 : NULL;
	}
}

static void put_definitions(struct buf *b, struct tp_exp *x)
{
	buf_append(b, "\x7fTRACE0\n", 8);
	buf_printf(b, "R %x\n", (unsigned)x->arch->g_size);
	put_tdesc(b, arch_tdesc_xml(x->arch, "target.xml"));
	buf_puts(b, "status ");
	tp_put_status(b, x);
	buf_putc(b, '\n');
	for (size_t i = 0; i < x->ntsvs; i++) {
		buf_puts(b, "tsv ");
		tp_put_tsv(b, &x->tsvs[i]);
		buf_putc(b, '\n');
	}
	for (size_t i = 0; i < x->npts; i++) {
		const struct tp_point *p = &x->pts[i];

		buf_puts(b, "tp ");
		tp_put_point(b, p);
		buf_putc(b, '\n');
		for (size_t k = 0; k < p->npieces; k++) {
			buf_puts(b, "tp ");
			tp_put_piece(b, p, &p->pieces[k]);
			buf_putc(b, '\n');
		}
		buf_printf(b, "tp V%x:%llx:%llx:%llx\n", p->num, (unsigned long long)p->addr,
			   (unsigned long long)p->hits, (unsigned long long)p->usage);
	}
	buf_putc(b, '\n');
}

static int write_frames(int fd, struct tp_store *ts)
{
	static const uint8_t end_mark[4];
	size_t n = ts->used < SAVE_CHUNK ? ts->used : SAVE_CHUNK;
	uint8_t *chunk = malloc(n ? n : 1);
	uint64_t off = 0;
	int err = 0;

	if (!chunk)
		return -ENOMEM;
	while (!err && off < ts->used) {
		size_t got = tps_read_raw(ts, off, chunk, n);

		if (!got)
			break;
		err = fd_write_all(fd, chunk, got);
		off += got;
	}
	free(chunk);
	return err ? err : fd_write_all(fd, end_mark, sizeof(end_mark));
}

/* QTSave:hexpath */
int gdb_tp_save(struct gdb_session *s, struct tp_exp *x, const char *q, const char *end)
{
	char path[PATH_MAX];
	size_t n = (size_t)(end - q) / 2;
	struct buf head;
	int fd, err;

	if ((size_t)(end - q) % 2 || n == 0 || n >= sizeof(path) ||
	    rsp_hex_decode(q, (size_t)(end - q), (uint8_t *)path, n) < 0 || memchr(path, 0, n))
		return -EINVAL;
	path[n] = '\0';
	tp_fast_drain(x); /* the agent's frames too */
	fd = gdb_open_as_client(s, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	buf_init(&head);
	put_definitions(&head, x);
	err = fd_write_all(fd, head.data, head.len);
	buf_free(&head);
	if (!err)
		err = write_frames(fd, &x->store);
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}
