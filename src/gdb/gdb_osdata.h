/*
 * gdb_osdata.h: what the two halves of `info os` share. gdb_osdata.c has
 * the XML writing, the /proc helpers, the per-process tables and the list
 * of types; gdb_osdata_sys.c the system-wide tables that /proc prints as
 * text (cpuinfo, sockets, System V IPC, modules). Private to those files.
 */
#ifndef UTRACED_GDB_OSDATA_H
#define UTRACED_GDB_OSDATA_H

#include "../util/buf.h"

/* Where /proc is; the unit test points it at a fake tree. */
extern const char *osd_proc_root;

/* One document being built: the output and what is worth remembering. */
struct osd {
	struct buf *out;
	struct buf tmp; /* the file osd_read_proc() read last */
	struct {
		unsigned id;
		char name[64];
	} names[2][16]; /* recent user [0] and group [1] names */
	unsigned nnames[2];
};

/* <column name="NAME">TEXT</column>, both escaped into well-formed XML. */
void osd_col(struct buf *b, const char *name, const char *text);
/* The same with printf-formatted text (a number). */
void osd_colf(struct buf *b, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A time column: ctime's text in local time, empty for 0 ("never"). */
void osd_col_time(struct buf *b, const char *name, long long secs);

/* Read the whole of /proc/FMT... into o->tmp (NUL-terminated); -errno. */
int osd_read_proc(struct osd *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pid's command name (comm) into out, or the number when it is gone. Uses o->tmp. */
void osd_command_of(struct osd *o, long pid, char out[64]);
/* The name of user (kind 0) or group (kind 1) id, or the number. */
const char *osd_id_name(struct osd *o, int kind, unsigned id);

/* The system-wide tables (gdb_osdata_sys.c). */
void osd_cpus(struct osd *o);
void osd_sockets(struct osd *o);
void osd_shm(struct osd *o);
void osd_semaphores(struct osd *o);
void osd_msg(struct osd *o);
void osd_modules(struct osd *o);

#endif
