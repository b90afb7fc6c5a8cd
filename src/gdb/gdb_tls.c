/*
 * gdb_tls.c: thread-local storage addresses (qGetTLSAddr) and the symbol
 * lookups they need (qSymbol).
 *
 * gdb knows a __thread variable's offset in its module's TLS block; the
 * block's address is in the thread's DTV, whose layout is glibc's private
 * business. glibc publishes that layout for debuggers as "db descriptors":
 * read-only symbols _thread_db_NAME, each uint32_t[3] = {size in bits,
 * element count, byte offset}, which its own libthread_db reads. We read
 * them too, from the target, so the layout always matches the target's
 * glibc. Their addresses come from gdb (qSymbol): the symbols are in
 * libc.so.6's .dynsym, or in a static program's .symtab. Each process
 * keeps its own answers (struct gdb_tls in struct gdb_proc).
 *
 * The thread pointer comes from arch_thread_pointer (x86-64: fs_base; an
 * i386 program's is the base of its gs segment in the GDT, which the
 * engine does not expose).
 */
#include "gdb_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

enum tls_sym {
	TLS_DTVP,      /* struct pthread's dtv pointer: the anchor, asked first */
	TLS_MODID,     /* struct link_map's l_tls_modid */
	TLS_DTV,       /* the dtv_t array (element size: one slot) */
	TLS_POINTER,   /* dtv_t.pointer.val */
	TLS_COUNTER,   /* dtv_t.counter */
	TLS_TLSOFFSET, /* struct link_map's l_tls_offset: optional, for static TLS */
};

#define TLS_REQUIRED ((1u << TLS_TLSOFFSET) - 1)

static const char *const tls_names[GDB_TLS_NSYMS] = {
	[TLS_DTVP] = "_thread_db_pthread_dtvp",
	[TLS_MODID] = "_thread_db_link_map_l_tls_modid",
	[TLS_DTV] = "_thread_db_dtv_dtv",
	[TLS_POINTER] = "_thread_db_dtv_t_pointer_val",
	[TLS_COUNTER] = "_thread_db_dtv_t_counter",
	[TLS_TLSOFFSET] = "_thread_db_link_map_l_tls_offset",
};

/* glibc's markers in l_tls_offset (x86-64): no static TLS block there */
#define NO_TLS_OFFSET		  0
#define FORCED_DYNAMIC_TLS_OFFSET ((uint64_t)-1)

/* One descriptor, as read from the target. */
struct tls_desc {
	uint32_t bits;
	uint32_t count;
	uint32_t offset;
};

static struct gdb_proc *selected_proc(struct gdb_session *s)
{
	return s->engine ? gdb_proc_of(s, engine_pid(s->engine)) : NULL;
}

/* The program changed (exec): its symbols are somewhere else, or gone. */
void gdb_tls_forget(struct gdb_proc *pr)
{
	memset(&pr->tls, 0, sizeof(pr->tls));
}

/* ------------------------------------------------------------ qSymbol */

/*
 * Ask cheaply: the anchor first, at each "qSymbol::" (gdb sends one at
 * connect and after each library load) until gdb knows it; then, once,
 * each of the others. All of them come from one object (libc or the
 * static program), so one gdb does not know once it knows the anchor
 * stays unknown: it is not asked again.
 */
static int next_to_ask(const struct gdb_tls *t)
{
	unsigned done = t->known | t->absent | t->asked;

	if (!(t->known & 1u << TLS_DTVP))
		return t->asked & 1u << TLS_DTVP ? -1 : TLS_DTVP;
	for (int i = 0; i < GDB_TLS_NSYMS; i++)
		if (!(done & 1u << i))
			return i;
	return -1;
}

static void ask(struct gdb_session *s, struct gdb_tls *t)
{
	int i = next_to_ask(t);

	if (i < 0) {
		buf_puts(&s->reply, "OK");
		return;
	}
	t->asked |= 1u << i;
	buf_puts(&s->reply, "qSymbol:");
	for (const char *c = tls_names[i]; *c; c++)
		buf_printf(&s->reply, "%02x", (unsigned char)*c);
}

/* The index of the symbol named by hex[len], -ENOENT (not one we ask for), or -EINVAL. */
static int sym_index(const char *hex, size_t len)
{
	char name[64];

	if (len % 2 || len / 2 >= sizeof(name) ||
	    rsp_hex_decode(hex, len, (uint8_t *)name, len / 2) < 0)
		return -EINVAL;
	name[len / 2] = '\0';
	for (int i = 0; i < GDB_TLS_NSYMS; i++)
		if (!strcmp(name, tls_names[i]))
			return i;
	return -ENOENT;
}

/* "qSymbol:VALUE:NAME" (gdb knows NAME) or "qSymbol::NAME" (it does not). */
static int take_answer(struct gdb_tls *t, const char *q, const char *end)
{
	const char *colon = memchr(q, ':', (size_t)(end - q));
	const char *v = q;
	uint64_t value;
	int i;

	if (!colon || colon + 1 == end)
		return -EINVAL;
	if (colon > q && (rsp_parse_hex(&v, colon, &value) < 0 || v != colon))
		return -EINVAL;
	i = sym_index(colon + 1, (size_t)(end - colon - 1));
	if (i == -ENOENT)
		return 0; /* not ours: go on asking */
	if (i < 0)
		return i;
	if (colon > q) {
		t->addr[i] = value;
		t->known |= 1u << i;
	} else if (i != TLS_DTVP) {
		t->absent |= 1u << i; /* the anchor may come with a later library */
	}
	return 0;
}

int gdb_handle_qsymbol(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = p + strlen("qSymbol");
	struct gdb_proc *pr = selected_proc(s);
	int err;

	if (end - q < 2 || *q++ != ':')
		return -EINVAL;
	if (!pr) {
		/* no process: nothing to look up for */
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (end - q == 1 && *q == ':') {
		pr->tls.asked = 0; /* a new conversation */
	} else if ((err = take_answer(&pr->tls, q, end)) < 0) {
		return err;
	}
	ask(s, &pr->tls);
	return 0;
}

/* -------------------------------------------------------- qGetTLSAddr */

static int read_desc(struct engine *e, const struct gdb_tls *t, enum tls_sym i, struct tls_desc *d)
{
	uint32_t w[3];

	if (!(t->known & 1u << i))
		return -ENOENT;
	if (engine_mem_read(e, t->addr[i], w, sizeof(w)) != (ssize_t)sizeof(w))
		return -EIO;
	d->bits = w[0];
	d->count = w[1];
	d->offset = w[2];
	/* a stale address (the program exec'd unseen) reads as anything: check */
	if (!d->bits || d->bits % 8 || d->bits > 1024 || !d->count)
		return -EPROTO;
	return 0;
}

/* Element idx of the field d describes, in the object at base: 4 or 8 bytes. */
static int read_field(struct engine *e, const struct tls_desc *d, uint64_t base, uint64_t idx,
		      uint64_t *out)
{
	uint32_t v32;
	uint64_t v64;
	uint64_t addr = base + d->offset + idx * (d->bits / 8);

	if (idx >= d->count)
		return -ERANGE;
	if (d->bits == 32) {
		if (engine_mem_read(e, addr, &v32, 4) != 4)
			return -EIO;
		*out = v32;
		return 0;
	}
	if (d->bits != 64)
		return -EPROTO;
	if (engine_mem_read(e, addr, &v64, 8) != 8)
		return -EIO;
	*out = v64;
	return 0;
}

/* A field of the object at base (element 0), its descriptor read first. */
static int read_sym_field(struct engine *e, const struct gdb_tls *t, enum tls_sym i, uint64_t base,
			  uint64_t *out)
{
	struct tls_desc d;
	int err = read_desc(e, t, i, &d);

	return err ? err : read_field(e, &d, base, 0, out);
}

/*
 * A module with a static TLS block (the program and the libraries loaded
 * with it, or one dlopen'ed that needs it) sits at a fixed distance below
 * the thread pointer (x86-64 has the TCB at tp), even while the thread's
 * DTV has no slot for it yet: glibc's libthread_db falls back so too.
 */
static int static_block(struct engine *e, const struct gdb_tls *t, uint64_t lm, uint64_t tp,
			uint64_t *base)
{
	uint64_t off;
	int err;

	if (!lm)
		return -EAGAIN;
	err = read_sym_field(e, t, TLS_TLSOFFSET, lm, &off);
	if (err)
		return -EAGAIN;
	if (off == NO_TLS_OFFSET || off == FORCED_DYNAMIC_TLS_OFFSET)
		return -EAGAIN;
	*base = tp - off;
	return 0;
}

/*
 * The TLS block of module modid for the thread whose thread pointer is tp.
 * -EAGAIN: not allocated (yet) in this thread.
 */
static int dtv_block(struct engine *e, const struct gdb_tls *t, uint64_t tp, uint64_t modid,
		     uint64_t *base)
{
	struct tls_desc dtv_d, ptr_d, cnt_d;
	uint64_t dtv, slots, val, slot_size;
	int err;

	if ((err = read_sym_field(e, t, TLS_DTVP, tp, &dtv)) ||
	    (err = read_desc(e, t, TLS_DTV, &dtv_d)) ||
	    (err = read_desc(e, t, TLS_POINTER, &ptr_d)) ||
	    (err = read_desc(e, t, TLS_COUNTER, &cnt_d)))
		return err;
	if (!dtv)
		return -EAGAIN;
	slot_size = dtv_d.bits / 8;
	/* dtv[-1].counter: how many module slots this thread's DTV has */
	err = read_field(e, &cnt_d, dtv - slot_size, 0, &slots);
	if (err)
		return err;
	if (modid > slots || modid >= dtv_d.count)
		return -EAGAIN;
	err = read_field(e, &ptr_d, dtv + dtv_d.offset + modid * slot_size, 0, &val);
	if (err)
		return err;
	/* TLS_DTV_UNALLOCATED is -1: the low bit; 0: a slot never filled in */
	if (!val || (val & 1))
		return -EAGAIN;
	*base = val;
	return 0;
}

/*
 * The address of offset in the TLS block of the module whose link map is
 * at lm (0: the program itself, which has no link map when static: glibc
 * then gives its TLS module id 1) for thread tid.
 */
static int tls_address(struct gdb_proc *pr, pid_t tid, uint64_t offset, uint64_t lm, uint64_t *addr)
{
	const struct gdb_tls *t = &pr->tls;
	struct arch_regs *r;
	uint64_t modid = 1, tp, base;
	int err;

	if ((t->known & TLS_REQUIRED) != TLS_REQUIRED)
		return -ENOENT;
	err = engine_regs(pr->e, tid, &r);
	if (!err)
		err = arch_thread_pointer(engine_arch(pr->e), r, &tp);
	if (err)
		return err;
	if (!tp)
		return -EAGAIN; /* libc has not set the thread up yet */
	if (lm && (err = read_sym_field(pr->e, t, TLS_MODID, lm, &modid)))
		return err;
	if (!modid)
		return -ENOENT; /* a module without TLS */
	err = dtv_block(pr->e, t, tp, modid, &base);
	if (err == -EAGAIN)
		err = static_block(pr->e, t, lm, tp, &base);
	if (err)
		return err;
	*addr = base + offset;
	return 0;
}

/* "qGetTLSAddr:THREAD,OFFSET,LM", all hex; THREAD may be pPID.TID. */
int gdb_handle_qgettlsaddr(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = p + strlen("qGetTLSAddr");
	struct gdb_proc *pr;
	uint64_t offset, lm, addr = 0;
	pid_t pid, tid;

	if (q == end || *q++ != ':' || gdb_parse_tid(&q, end, &pid, &tid) < 0 || q == end ||
	    *q++ != ',' || rsp_parse_hex(&q, end, &offset) < 0 || q == end || *q++ != ',' ||
	    rsp_parse_hex(&q, end, &lm) < 0 || q != end)
		return -EINVAL;
	pr = pid > 0 ? gdb_proc_of(s, pid) : selected_proc(s);
	if (!pr || tid <= 0 || !engine_thread_alive(pr->e, tid))
		return -ESRCH;
	if (tls_address(pr, tid, offset, lm, &addr) < 0) {
		/* gdbserver's answer to any libthread_db failure, "not allocated" too */
		buf_puts(&s->reply, "E01");
		return 0;
	}
	buf_printf(&s->reply, "%" PRIx64, addr);
	return 0;
}
