/*
 * gdb_handlers.h: prototypes of packet handlers and helpers that live in
 * their own files (host I/O, SVR4 library list).
 */
#ifndef UTRACED_GDB_HANDLERS_H
#define UTRACED_GDB_HANDLERS_H

#include "gdb.h"

#include <sys/types.h>

/*
 * Host I/O, "vFile:op:args" (gdb_vfile.c). Needs no process. Always
 * returns 0: "F..." in s->reply, or empty for an unknown operation.
 */
int gdb_handle_vfile(struct gdb_session *s, const char *payload, size_t len);
/* Close every vFile handle and forget vFile:setfs (session teardown). */
void gdb_vfile_close_all(struct gdb_session *s);
/* open(2) checked as for the client; a regular file only. An fd or -errno. */
int gdb_open_as_client(struct gdb_session *s, const char *path, int flags, mode_t mode);
/*
 * Append the qXfer:libraries-svr4:read document for annex (may be NULL or
 * "start=..;prev=..;lmid=..") to out (gdb_libraries.c). Returns 0 (an
 * empty list while ld.so has not run), or -errno if auxv is unreadable.
 */
int gdb_libraries_svr4_xml(struct engine *e, const char *annex, struct buf *out);

#endif
