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

/* The four owner columns every IPC object has. */
static void ipc_owners(struct osd *o, unsigned uid, unsigned gid, unsigned cuid, unsigned cgid)
{
	osd_col(o->out, "user", osd_id_name(o, 0, uid));
	osd_col(o->out, "group", osd_id_name(o, 1, gid));
	osd_col(o->out, "creator user", osd_id_name(o, 0, cuid));
	osd_col(o->out, "creator group", osd_id_name(o, 1, cgid));
}

/*
 * The lines of /proc/sysvipc/NAME into o->tmp; the text is copied out of
 * o->tmp (into *copy, to free) since osd_command_of() reads files through it.
 */
static char *ipc_lines(struct osd *o, const char *name, char **copy)
{
	*copy = NULL;
	if (osd_read_proc(o, "sysvipc/%s", name) < 0)
		return NULL;
	*copy = strdup(o->tmp.data);
	return *copy;
}

void osd_shm(struct osd *o)
{
	char *text, *p = ipc_lines(o, "shm", &text), *line;

	while (p && (line = next_line(&p))) {
		int key, id, nattch;
		unsigned perms, uid, gid, cuid, cgid;
		unsigned long long size;
		long long cpid, lpid, atime, dtime, ctime;
		char ccmd[64], lcmd[64];

		/* key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime ... */
		if (sscanf(line, "%d %d %o %llu %lld %lld %d %u %u %u %u %lld %lld %lld", &key, &id,
			   &perms, &size, &cpid, &lpid, &nattch, &uid, &gid, &cuid, &cgid, &atime,
			   &dtime, &ctime) != 14)
			continue;
		osd_command_of(o, cpid, ccmd);
		osd_command_of(o, lpid, lcmd);
		buf_puts(o->out, "<item>");
		osd_colf(o->out, "key", "%d", key);
		osd_colf(o->out, "shmid", "%d", id);
		osd_colf(o->out, "permissions", "%o", perms);
		osd_colf(o->out, "size", "%llu", size);
		osd_col(o->out, "creator command", ccmd);
		osd_col(o->out, "last op. command", lcmd);
		osd_colf(o->out, "num attached", "%d", nattch);
		ipc_owners(o, uid, gid, cuid, cgid);
		osd_col_time(o->out, "last shmat() time", atime);
		osd_col_time(o->out, "last shmdt() time", dtime);
		osd_col_time(o->out, "last shmctl() time", ctime);
		buf_puts(o->out, "</item>");
	}
	free(text);
}

void osd_semaphores(struct osd *o)
{
	char *text, *p = ipc_lines(o, "sem", &text), *line;

	while (p && (line = next_line(&p))) {
		int key, id;
		unsigned perms, nsems, uid, gid, cuid, cgid;
		long long otime, ctime;

		/* key semid perms nsems uid gid cuid cgid otime ctime */
		if (sscanf(line, "%d %d %o %u %u %u %u %u %lld %lld", &key, &id, &perms, &nsems,
			   &uid, &gid, &cuid, &cgid, &otime, &ctime) != 10)
			continue;
		buf_puts(o->out, "<item>");
		osd_colf(o->out, "key", "%d", key);
		osd_colf(o->out, "semid", "%d", id);
		osd_colf(o->out, "permissions", "%o", perms);
		osd_colf(o->out, "num semaphores", "%u", nsems);
		ipc_owners(o, uid, gid, cuid, cgid);
		osd_col_time(o->out, "last semop() time", otime);
		osd_col_time(o->out, "last semctl() time", ctime);
		buf_puts(o->out, "</item>");
	}
	free(text);
}

void osd_msg(struct osd *o)
{
	char *text, *p = ipc_lines(o, "msg", &text), *line;

	while (p && (line = next_line(&p))) {
		int key, id;
		unsigned perms, uid, gid, cuid, cgid;
		unsigned long long cbytes, qnum;
		long long lspid, lrpid, stime, rtime, ctime;
		char scmd[64], rcmd[64];

		/* key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid stime rtime ctime */
		if (sscanf(line, "%d %d %o %llu %llu %lld %lld %u %u %u %u %lld %lld %lld", &key,
			   &id, &perms, &cbytes, &qnum, &lspid, &lrpid, &uid, &gid, &cuid, &cgid,
			   &stime, &rtime, &ctime) != 14)
			continue;
		osd_command_of(o, lspid, scmd);
		osd_command_of(o, lrpid, rcmd);
		buf_puts(o->out, "<item>");
		osd_colf(o->out, "key", "%d", key);
		osd_colf(o->out, "msqid", "%d", id);
		osd_colf(o->out, "permissions", "%o", perms);
		osd_colf(o->out, "num used bytes", "%llu", cbytes);
		osd_colf(o->out, "num messages", "%llu", qnum);
		osd_col(o->out, "last msgsnd() command", scmd);
		osd_col(o->out, "last msgrcv() command", rcmd);
		ipc_owners(o, uid, gid, cuid, cgid);
		osd_col_time(o->out, "last msgsnd() time", stime);
		osd_col_time(o->out, "last msgrcv() time", rtime);
		osd_col_time(o->out, "last msgctl() time", ctime);
		buf_puts(o->out, "</item>");
	}
	free(text);
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
