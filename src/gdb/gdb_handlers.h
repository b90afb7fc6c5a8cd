/*
 * gdb_handlers.h: prototypes of packet handlers and helpers that live in
 * their own files (host I/O, SVR4 library list).
 */
#ifndef UTRACED_GDB_HANDLERS_H
#define UTRACED_GDB_HANDLERS_H

#include "gdb.h"

int gdb_handle_vfile(struct gdb_session *s, const char *payload, size_t len);
void gdb_vfile_close_all(struct gdb_session *s);
int gdb_libraries_svr4_xml(struct engine *e, const char *annex, struct buf *out);

#endif
