/*
 * gdb_osdata_sys.c: the system-wide `info os` tables: cpus, sockets, shm,
 * semaphores, msg and modules. /proc prints each as a text table; here its
 * lines become <item>s with gdbserver's column names and order (see
 * gdb_osdata.c for the document around them). Lines that do not parse (the
 * headers, a format we do not know) are skipped.
 */
#include "gdb_osdata.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* ------------------------------------------------------- line by line */

/* The next line of text at *pp (its '\n' replaced by NUL), or NULL at the end. */
static char *next_line(char **pp)
{
	char *line = *pp, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*pp = nl + 1;
	} else {
		*pp = line + strlen(line);
	}
	return line;
}

/* s without leading and trailing white space (s is modified). */
static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/*
 * /proc/cpuinfo: one item per processor, a column per "key : value"
 * line. gdbserver keeps the blanks around values (gdb strips them) and
 * cuts a value at a second ':'; we trim and keep the whole value.
 */
void osd_cpus(struct osd *o)
{
	bool open_item = false;
	char *p, *line;

	if (osd_read_proc(o, "cpuinfo") < 0)
		return;
	p = o->tmp.data;
	while ((line = next_line(&p))) {
		char *colon = strchr(line, ':'), *key;

		if (!colon)
			continue;
		*colon = '\0';
		key = trim(line);
		if (!strcmp(key, "processor")) {
			buf_puts(o->out, open_item ? "</item><item>" : "<item>");
			open_item = true;
		}
		osd_col(o->out, key, trim(colon + 1));
	}
	if (open_item)
		buf_puts(o->out, "</item>");
}

/* ctime's text, without its newline (gdb would strip it). */
void osd_col_time(struct buf *b, const char *name, long long secs)
{
	char text[64] = "";
	time_t t = (time_t)secs;
	struct tm tm;

	if (secs && localtime_r(&t, &tm))
		strftime(text, sizeof(text), "%a %b %e %H:%M:%S %Y", &tm);
	osd_col(b, name, text);
}

/* ------------------------------------------------------------- sockets */

static const char *tcp_state(unsigned st)
{
	static const char *const names[] = {
		"(unknown)", "ESTABLISHED", "SYN_SENT",	  "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
		"TIME_WAIT", "CLOSE",	    "CLOSE_WAIT", "LAST_ACK", "LISTEN",	   "CLOSING",
	};

	return st < sizeof(names) / sizeof(names[0]) ? names[st] : names[0];
}

/*
 * Address HEX from /proc/net/{tcp,udp}{,6} as text. The kernel prints
 * each 32-bit word of the address in host order, so the words go back
 * into memory as they are.
 */
static bool net_addr(int family, const char *hex, char *out, size_t len)
{
	unsigned char addr[16];
	size_t words = family == AF_INET ? 1 : 4;

	if (strlen(hex) != 8 * words)
		return false;
	for (size_t i = 0; i < words; i++) {
		char w[9];
		uint32_t v;

		memcpy(w, hex + 8 * i, 8);
		w[8] = '\0';
		v = (uint32_t)strtoul(w, NULL, 16);
		memcpy(addr + 4 * i, &v, 4);
	}
	return inet_ntop(family, addr, out, (socklen_t)len) != NULL;
}

static void sockets_of(struct osd *o, const char *file, int family, bool tcp)
{
	char *p, *line;

	if (osd_read_proc(o, "net/%s", file) < 0)
		return;
	p = o->tmp.data;
	while ((line = next_line(&p))) {
		char lhex[40], rhex[40], laddr[INET6_ADDRSTRLEN], raddr[INET6_ADDRSTRLEN];
		unsigned lport, rport, state, uid;

		/* "sl: LOCAL:PORT REMOTE:PORT ST TX:RX TR:WHEN RETR UID ..."; the header fails. */
		if (sscanf(line,
			   "%*d: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %u",
			   lhex, &lport, rhex, &rport, &state, &uid) != 6)
			continue;
		if (!net_addr(family, lhex, laddr, sizeof(laddr)) ||
		    !net_addr(family, rhex, raddr, sizeof(raddr)))
			continue;
		buf_puts(o->out, "<item>");
		osd_col(o->out, "local address", laddr);
		osd_colf(o->out, "local port", "%u", lport);
		osd_col(o->out, "remote address", raddr);
		osd_colf(o->out, "remote port", "%u", rport);
		osd_col(o->out, "state", tcp_state(state));
		osd_col(o->out, "user", osd_id_name(o, 0, uid));
		osd_col(o->out, "family", family == AF_INET ? "INET" : "INET6");
		osd_col(o->out, "protocol", tcp ? "STREAM" : "DGRAM");
		buf_puts(o->out, "</item>");
	}
}

void osd_sockets(struct osd *o)
{
	sockets_of(o, "tcp", AF_INET, true);
	sockets_of(o, "udp", AF_INET, false);
	sockets_of(o, "tcp6", AF_INET6, true);
	sockets_of(o, "udp6", AF_INET6, false);
}

/* -------------------------------------------------------- System V IPC */

/*
 * /proc/sysvipc/{shm,sem,msg}: one object per line, numbers only. Each
 * table says which field goes in which of gdb's columns, and how.
 */
enum ipc_kind {
	IPC_DEC,    /* a number */
	IPC_OCT,    /* permissions */
	IPC_CMD,    /* a pid, shown as its command */
	IPC_TIME,   /* seconds since the epoch */
	IPC_OWNERS, /* uid gid cuid cgid from this field on: four columns */
};

struct ipc_col {
	const char *name;
	int field;
	enum ipc_kind kind;
};

#define IPC_FIELDS 16

/* key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime */
static const struct ipc_col shm_cols[] = {
	{"key", 0, IPC_DEC},
	{"shmid", 1, IPC_DEC},
	{"permissions", 2, IPC_OCT},
	{"size", 3, IPC_DEC},
	{"creator command", 4, IPC_CMD},
	{"last op. command", 5, IPC_CMD},
	{"num attached", 6, IPC_DEC},
	{NULL, 7, IPC_OWNERS},
	{"last shmat() time", 11, IPC_TIME},
	{"last shmdt() time", 12, IPC_TIME},
	{"last shmctl() time", 13, IPC_TIME},
};

/* key semid perms nsems uid gid cuid cgid otime ctime */
static const struct ipc_col sem_cols[] = {
	{"key", 0, IPC_DEC},
	{"semid", 1, IPC_DEC},
	{"permissions", 2, IPC_OCT},
	{"num semaphores", 3, IPC_DEC},
	{NULL, 4, IPC_OWNERS},
	{"last semop() time", 8, IPC_TIME},
	{"last semctl() time", 9, IPC_TIME},
};

/* key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid stime rtime ctime */
static const struct ipc_col msg_cols[] = {
	{"key", 0, IPC_DEC},
	{"msqid", 1, IPC_DEC},
	{"permissions", 2, IPC_OCT},
	{"num used bytes", 3, IPC_DEC},
	{"num messages", 4, IPC_DEC},
	{"last msgsnd() command", 5, IPC_CMD},
	{"last msgrcv() command", 6, IPC_CMD},
	{NULL, 7, IPC_OWNERS},
	{"last msgsnd() time", 11, IPC_TIME},
	{"last msgrcv() time", 12, IPC_TIME},
	{"last msgctl() time", 13, IPC_TIME},
};

/* The fields of one line (perms, field 2, in octal); how many were read. */
static int ipc_fields(char *line, long long *v)
{
	int n = 0;

	while (n < IPC_FIELDS) {
		char *end;

		v[n] = strtoll(line, &end, n == 2 ? 8 : 10);
		if (end == line)
			break;
		line = end;
		n++;
	}
	return n;
}

/* The four owner columns every IPC object has. */
static void ipc_owners(struct osd *o, const long long *id)
{
	osd_col(o->out, "user", osd_id_name(o, 0, (unsigned)id[0]));
	osd_col(o->out, "group", osd_id_name(o, 1, (unsigned)id[1]));
	osd_col(o->out, "creator user", osd_id_name(o, 0, (unsigned)id[2]));
	osd_col(o->out, "creator group", osd_id_name(o, 1, (unsigned)id[3]));
}

static void ipc_item(struct osd *o, const struct ipc_col *cols, size_t ncols, const long long *v)
{
	char cmd[64];

	buf_puts(o->out, "<item>");
	for (size_t i = 0; i < ncols; i++) {
		const struct ipc_col *c = &cols[i];
		long long x = v[c->field];

		switch (c->kind) {
		case IPC_DEC:
			osd_colf(o->out, c->name, "%lld", x);
			break;
		case IPC_OCT:
			osd_colf(o->out, c->name, "%llo", x);
			break;
		case IPC_CMD:
			osd_command_of(o, x, cmd);
			osd_col(o->out, c->name, cmd);
			break;
		case IPC_TIME:
			osd_col_time(o->out, c->name, x);
			break;
		case IPC_OWNERS:
			ipc_owners(o, &v[c->field]);
			break;
		}
	}
	buf_puts(o->out, "</item>");
}

/*
 * Every object of /proc/sysvipc/NAME. The text is copied out of o->tmp
 * first: osd_command_of() reads files through it.
 */
static void ipc_objects(struct osd *o, const char *name, const struct ipc_col *cols, size_t ncols)
{
	char *text, *p, *line;
	int need = 0;

	for (size_t i = 0; i < ncols; i++) {
		int last = cols[i].field + (cols[i].kind == IPC_OWNERS ? 3 : 0);

		need = last + 1 > need ? last + 1 : need;
	}
	if (osd_read_proc(o, "sysvipc/%s", name) < 0 || !(text = strdup(o->tmp.data)))
		return;
	p = text;
	while ((line = next_line(&p))) {
		long long v[IPC_FIELDS];

		if (ipc_fields(line, v) >= need) /* the header line has none */
			ipc_item(o, cols, ncols, v);
	}
	free(text);
}

void osd_shm(struct osd *o)
{
	ipc_objects(o, "shm", shm_cols, sizeof(shm_cols) / sizeof(shm_cols[0]));
}

void osd_semaphores(struct osd *o)
{
	ipc_objects(o, "sem", sem_cols, sizeof(sem_cols) / sizeof(sem_cols[0]));
}

void osd_msg(struct osd *o)
{
	ipc_objects(o, "msg", msg_cols, sizeof(msg_cols) / sizeof(msg_cols[0]));
}

/* /proc/modules: "name size uses deps state address [taint]". */
void osd_modules(struct osd *o)
{
	char *p, *line;

	if (osd_read_proc(o, "modules") < 0)
		return;
	p = o->tmp.data;
	while ((line = next_line(&p))) {
		char *f[6], *save = NULL, *end;
		unsigned long long addr;
		int i;

		for (i = 0; i < 6 && (f[i] = strtok_r(i ? NULL : line, " ", &save)); i++)
			;
		if (i < 6)
			continue;
		addr = strtoull(f[5], &end, 16);
		if (end == f[5] || !isdigit((unsigned char)f[1][0]) ||
		    !(isdigit((unsigned char)f[2][0]) || f[2][0] == '-'))
			continue;
		buf_puts(o->out, "<item>");
		osd_col(o->out, "name", f[0]);
		osd_colf(o->out, "size", "%lu", strtoul(f[1], NULL, 10));
		osd_colf(o->out, "num uses", "%ld", strtol(f[2], NULL, 10));
		osd_col(o->out, "dependencies", f[3]);
		osd_col(o->out, "status", f[4]);
		osd_colf(o->out, "address", "%llx", addr);
		buf_puts(o->out, "</item>");
	}
}
