/*
 * gdb_osdata.c: the qXfer:osdata:read documents behind gdb's `info os`.
 *
 * `info os TYPE` shows a table the server builds from /proc: processes,
 * process groups, threads, open files, internet sockets, System V IPC
 * objects, kernel modules and CPUs. None of it concerns the debugged
 * process, so it works before `run` in extended-remote mode, and nothing
 * here touches the engine or ptrace: only /proc files are read.
 *
 * The documents have gdbserver's shape, which gdb's table printer expects:
 * <osdata type="T"><item><column name="C">text</column>...</item></osdata>,
 * with the same types, column names and column order. The empty annex
 * lists the types; an unknown one gets an empty document, which gdb
 * reports as "Wrong osdata type?". Where gdbserver truncates or mangles
 * (command names cut at a space, control bytes that make gdb's XML parser
 * reject the whole table), we show the real value, made well-formed.
 *
 * A document is built whole into the caller's buffer (the session's qXfer
 * cache), so its size follows the host's, with no fixed limit. The tables
 * /proc prints as text (cpuinfo, sockets, IPC, modules) are in
 * gdb_osdata_sys.c.
 */
#include "gdb_int.h"
#include "gdb_osdata.h"
#include "../util/xml.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *osd_proc_root = "/proc";

/* ---------------------------------------------------------------- XML */

void osd_col(struct buf *b, const char *name, const char *text)
{
	buf_puts(b, "<column name=\"");
	xml_escape(b, name);
	buf_puts(b, "\">");
	xml_escape(b, text);
	buf_puts(b, "</column>");
}

void osd_colf(struct buf *b, const char *name, const char *fmt, ...)
{
	char text[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	osd_col(b, name, text);
}

/* -------------------------------------------------------- /proc reads */

int osd_read_proc(struct osd *o, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/", osd_proc_root);
	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - (size_t)n, fmt, ap);
	va_end(ap);
	buf_reset(&o->tmp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		buf_reserve(&o->tmp, 4096);
		got = read(fd, o->tmp.data + o->tmp.len, o->tmp.cap - o->tmp.len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int err = got < 0 ? -errno : 0;

			close(fd);
			o->tmp.data[o->tmp.len] = '\0';
			return err;
		}
		o->tmp.len += (size_t)got;
	}
}

static DIR *open_proc_dir(const char *fmt, long pid)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/", osd_proc_root);

	snprintf(path + n, sizeof(path) - (size_t)n, fmt, pid);
	return opendir(path);
}

/* The next entry of d named by a number (a pid, a tid, an fd), or false. */
static bool next_number(DIR *d, long *num, const char **name)
{
	struct dirent *de;

	while ((de = readdir(d))) {
		const char *p = de->d_name;
		size_t n = strlen(p);

		if (n == 0 || n > 10 || strspn(p, "0123456789") != n)
			continue;
		*num = strtol(p, NULL, 10);
		if (name)
			*name = p;
		return true;
	}
	return false;
}

/* What we use of /proc/PID/stat. */
struct pstat {
	char comm[64]; /* up to the last ')': a name may hold ')' and spaces */
	long pgrp;     /* field 5 */
	int core;      /* field 39, "processor"; -1 if absent */
};

/* Parse a /proc/PID/stat line into ps; -EINVAL if it has no "(comm)". */
static int parse_stat(const char *text, struct pstat *ps)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	size_t n;

	if (!open || !close || close < open)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(ps->comm))
		n = sizeof(ps->comm) - 1;
	memcpy(ps->comm, open + 1, n);
	ps->comm[n] = '\0';
	ps->pgrp = 0;
	ps->core = -1;
	/* Fields from 3 on follow the ')', separated by single spaces. */
	p = close + 1;
	for (int field = 3; field <= 39; field++) {
		char *end;
		long v;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		v = strtol(p, &end, 10);
		if (field == 5)
			ps->pgrp = v;
		else if (field == 39 && end != p)
			ps->core = (int)v;
		p += strcspn(p, " \n");
	}
	return 0;
}

/* /proc/PID/stat or /proc/PID/task/TID/stat (tid 0) parsed; -errno on failure. */
static int read_stat(struct osd *o, long pid, long tid, struct pstat *ps)
{
	int err = tid ? osd_read_proc(o, "%ld/task/%ld/stat", pid, tid)
		      : osd_read_proc(o, "%ld/stat", pid);

	return err ? err : parse_stat(o->tmp.data, ps);
}

/*
 * The command name of pid into out: its comm, or the number itself when
 * the process is gone (an IPC object's creator may be), as gdbserver does.
 */
void osd_command_of(struct osd *o, long pid, char out[64])
{
	struct pstat ps;

	if (read_stat(o, pid, 0, &ps) == 0)
		snprintf(out, 64, "%s", ps.comm);
	else
		snprintf(out, 64, "%ld", pid);
}

/*
 * pid's command line, arguments joined by spaces, into b; "[comm]" for a
 * process without one (a kernel thread, a zombie). Empty if unreadable.
 */
static void cmdline_of(struct osd *o, long pid, struct buf *b)
{
	char comm[64];

	buf_reset(b);
	if (osd_read_proc(o, "%ld/cmdline", pid) < 0)
		return;
	while (o->tmp.len && o->tmp.data[o->tmp.len - 1] == '\0')
		o->tmp.len--;
	if (o->tmp.len == 0) {
		osd_command_of(o, pid, comm);
		buf_printf(b, "[%s]", comm);
		return;
	}
	for (size_t i = 0; i < o->tmp.len; i++)
		buf_putc(b, o->tmp.data[i] ? o->tmp.data[i] : ' ');
}

/*
 * The name of user (kind 0) or group (kind 1) id, or the number when it
 * has none. Names are cached: a listing asks for a few ids many times.
 */
const char *osd_id_name(struct osd *o, int kind, unsigned id)
{
	unsigned n = o->nnames[kind], slot = n % 16;
	char scratch[16384], *name = NULL;

	for (unsigned i = 0; i < n && i < 16; i++)
		if (o->names[kind][i].id == id)
			return o->names[kind][i].name;
	if (kind == 0) {
		struct passwd pw, *res = NULL;

		if (getpwuid_r(id, &pw, scratch, sizeof(scratch), &res) == 0 && res)
			name = res->pw_name;
	} else {
		struct group gr, *res = NULL;

		if (getgrgid_r(id, &gr, scratch, sizeof(scratch), &res) == 0 && res)
			name = res->gr_name;
	}
	o->names[kind][slot].id = id;
	if (name)
		snprintf(o->names[kind][slot].name, sizeof(o->names[kind][slot].name), "%s", name);
	else
		snprintf(o->names[kind][slot].name, sizeof(o->names[kind][slot].name), "%u", id);
	o->nnames[kind] = n + 1;
	return o->names[kind][slot].name;
}

/* ----------------------------------------------------------- processes */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The cores pid's threads last ran on, ascending, as "0,3" into b. */
static void cores_of(struct osd *o, long pid, struct buf *b)
{
	DIR *d = open_proc_dir("%ld/task", pid);
	int *cores = NULL;
	size_t n = 0, cap = 0;
	struct pstat ps;
	long tid;

	buf_reset(b);
	if (!d)
		return;
	while (next_number(d, &tid, NULL)) {
		if (read_stat(o, pid, tid, &ps) < 0 || ps.core < 0)
			continue;
		if (n == cap) {
			int *more = realloc(cores, (cap = cap ? 2 * cap : 16) * sizeof(*cores));

			if (!more)
				break;
			cores = more;
		}
		cores[n++] = ps.core;
	}
	closedir(d);
	if (n)
		qsort(cores, n, sizeof(*cores), cmp_int);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cores[i] != cores[i - 1])
			buf_printf(b, "%s%d", b->len ? "," : "", cores[i]);
	free(cores);
}

static void doc_processes(struct osd *o)
{
	struct buf cmd, cores;
	DIR *d = open_proc_dir("", 0);
	const char *name;
	long pid;

	if (!d)
		return;
	buf_init(&cmd);
	buf_init(&cores);
	while (next_number(d, &pid, &name)) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", osd_proc_root, name);
		cmdline_of(o, pid, &cmd);
		cores_of(o, pid, &cores);
		buf_puts(o->out, "<item>");
		osd_colf(o->out, "pid", "%ld", pid);
		osd_col(o->out, "user", stat(path, &st) == 0 ? osd_id_name(o, 0, st.st_uid) : "?");
		osd_col(o->out, "command", cmd.data ? cmd.data : "");
		osd_col(o->out, "cores", cores.data ? cores.data : "");
		buf_puts(o->out, "</item>");
	}
	closedir(d);
	buf_free(&cmd);
	buf_free(&cores);
}

struct pid_pgid {
	long pid, pgid;
};

/* By group; in a group its leader first, then by pid. */
static int cmp_pgid(const void *a, const void *b)
{
	const struct pid_pgid *x = a, *y = b;
	bool xl = x->pid == x->pgid, yl = y->pid == y->pgid;

	if (x->pgid != y->pgid)
		return x->pgid < y->pgid ? -1 : 1;
	if (xl != yl)
		return xl ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void doc_procgroups(struct osd *o)
{
	DIR *d = open_proc_dir("", 0);
	struct pid_pgid *list = NULL;
	size_t n = 0, cap = 0;
	struct pstat ps;
	struct buf cmd;
	long pid;

	if (!d)
		return;
	while (next_number(d, &pid, NULL)) {
		/* Kernel threads are in group 0: not listed. */
		if (read_stat(o, pid, 0, &ps) < 0 || ps.pgrp <= 0)
			continue;
		if (n == cap) {
			struct pid_pgid *more =
				realloc(list, (cap = cap ? 2 * cap : 256) * sizeof(*list));

			if (!more)
				break;
			list = more;
		}
		list[n].pid = pid;
		list[n++].pgid = ps.pgrp;
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), cmp_pgid);
	buf_init(&cmd);
	for (size_t i = 0; i < n; i++) {
		char leader[64];

		osd_command_of(o, list[i].pgid, leader);
		cmdline_of(o, list[i].pid, &cmd);
		buf_puts(o->out, "<item>");
		osd_colf(o->out, "pgid", "%ld", list[i].pgid);
		osd_col(o->out, "leader command", leader);
		osd_colf(o->out, "pid", "%ld", list[i].pid);
		osd_col(o->out, "command line", cmd.data ? cmd.data : "");
		buf_puts(o->out, "</item>");
	}
	buf_free(&cmd);
	free(list);
}

static void doc_threads(struct osd *o)
{
	DIR *d = open_proc_dir("", 0), *t;
	long pid, tid;

	if (!d)
		return;
	while (next_number(d, &pid, NULL)) {
		char comm[64];

		if (!(t = open_proc_dir("%ld/task", pid)))
			continue;
		osd_command_of(o, pid, comm);
		while (next_number(t, &tid, NULL)) {
			struct pstat ps;

			if (read_stat(o, pid, tid, &ps) < 0)
				ps.core = -1;
			buf_puts(o->out, "<item>");
			osd_colf(o->out, "pid", "%ld", pid);
			osd_col(o->out, "command", comm);
			osd_colf(o->out, "tid", "%ld", tid);
			osd_colf(o->out, "core", "%d", ps.core);
			buf_puts(o->out, "</item>");
		}
		closedir(t);
	}
	closedir(d);
}

static void doc_files(struct osd *o)
{
	DIR *d = open_proc_dir("", 0), *f;
	const char *fd;
	long pid, num;

	if (!d)
		return;
	while (next_number(d, &pid, NULL)) {
		char comm[64], path[PATH_MAX], target[PATH_MAX];

		if (!(f = open_proc_dir("%ld/fd", pid)))
			continue;
		osd_command_of(o, pid, comm);
		while (next_number(f, &num, &fd)) {
			ssize_t n;

			snprintf(path, sizeof(path), "%s/%ld/fd/%s", osd_proc_root, pid, fd);
			n = readlink(path, target, sizeof(target) - 1);
			/* An unreadable link (another user's) shows the fd number. */
			if (n < 0)
				snprintf(target, sizeof(target), "%s", fd);
			else
				target[n] = '\0';
			buf_puts(o->out, "<item>");
			osd_colf(o->out, "pid", "%ld", pid);
			osd_col(o->out, "command", comm);
			osd_col(o->out, "file descriptor", fd);
			osd_col(o->out, "name", target);
			buf_puts(o->out, "</item>");
		}
		closedir(f);
	}
	closedir(d);
}

/* --------------------------------------------------------------- types */

static void doc_types(struct osd *o);

/* Every type, in gdbserver's order (`info os` lists them as given). */
static const struct osdata_type {
	const char *annex; /* what gdb asks for */
	const char *doc;   /* the document's type="" */
	const char *title;
	const char *description;
	void (*build)(struct osd *o);
} osdata_types[] = {
	{"", "types", "Types", "Listing of info os types you can list", doc_types},
	{"cpus", "cpus", "CPUs", "Listing of all cpus/cores on the system", osd_cpus},
	{"files", "files", "File descriptors", "Listing of all file descriptors", doc_files},
	{"modules", "modules", "Kernel modules", "Listing of all loaded kernel modules",
	 osd_modules},
	{"msg", "message queues", "Message queues", "Listing of all message queues", osd_msg},
	{"processes", "processes", "Processes", "Listing of all processes", doc_processes},
	{"procgroups", "process groups", "Process groups", "Listing of all process groups",
	 doc_procgroups},
	{"semaphores", "semaphores", "Semaphores", "Listing of all semaphores", osd_semaphores},
	{"shm", "shared memory", "Shared-memory regions", "Listing of all shared-memory regions",
	 osd_shm},
	{"sockets", "I sockets", "Sockets", "Listing of all internet-domain sockets", osd_sockets},
	{"threads", "threads", "Threads", "Listing of all threads", doc_threads},
};

#define OSDATA_NTYPES (sizeof(osdata_types) / sizeof(osdata_types[0]))

static void doc_types(struct osd *o)
{
	/* Entry 0 is this list itself, not a type to list. */
	for (size_t i = 1; i < OSDATA_NTYPES; i++) {
		buf_puts(o->out, "<item>");
		osd_col(o->out, "Type", osdata_types[i].annex);
		osd_col(o->out, "Description", osdata_types[i].description);
		osd_col(o->out, "Title", osdata_types[i].title);
		buf_puts(o->out, "</item>");
	}
}

int gdb_osdata_xml(const char *annex, struct buf *out)
{
	struct osd o = {.out = out};

	for (size_t i = 0; i < OSDATA_NTYPES; i++) {
		const struct osdata_type *t = &osdata_types[i];

		if (strcmp(annex, t->annex) != 0)
			continue;
		buf_init(&o.tmp);
		buf_printf(out, "<osdata type=\"%s\">\n", t->doc);
		t->build(&o);
		buf_puts(out, "</osdata>\n");
		buf_free(&o.tmp);
		return 0;
	}
	return 0; /* unknown type: an empty document, as gdbserver answers */
}
