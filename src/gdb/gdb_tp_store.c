/*
 * gdb_tp_store.c: the trace buffer and the blocks of a trace frame (see
 * gdb_tp_store.h). Pure: no engine, no protocol; the frames' bytes are
 * ours, but they are walked as if hostile all the same, so that a bug in
 * the collection cannot turn into a read past a frame.
 */
#include "gdb_tp_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK (1u << 20)

struct tp_chunk {
	struct tp_chunk *next; /* newer */
	size_t size, used;     /* bytes of data[] */
	size_t live;	       /* frames in it not dropped yet */
	uint8_t data[];
};

void tps_init(struct tp_store *ts)
{
	memset(ts, 0, sizeof(*ts));
	ts->size = TPS_DEFAULT_SIZE;
}

static uint8_t *slot(const struct tp_store *ts, size_t i)
{
	return ts->frames[(ts->head + i) % ts->cap];
}

static size_t stored_len(const uint8_t *f)
{
	uint32_t len;

	memcpy(&len, f + 2, 4);
	return len;
}

/* Does frame f start with an 'r' block (a fast tracepoint's registers)? */
static bool compact(const struct tp_store *ts, const uint8_t *f)
{
	return ts->map && stored_len(f) > TPF_COMPACT_LEN && f[TPS_HDR] == TPF_COMPACT;
}

/* What frame f counts for: its header and data, an 'r' block as its 'R' block. */
static size_t frame_bytes(const struct tp_store *ts, const uint8_t *f)
{
	size_t n = TPS_HDR + stored_len(f);

	return compact(ts, f) ? n - TPF_COMPACT_LEN + ts->map->len : n;
}

static void chunk_free(struct tp_store *ts)
{
	struct tp_chunk *c = ts->oldest;

	ts->oldest = c->next;
	if (!ts->oldest)
		ts->newest = NULL;
	munmap(c, sizeof(*c) + c->size);
}

static void drop_oldest(struct tp_store *ts)
{
	uint8_t *f = slot(ts, 0);
	size_t fl = frame_bytes(ts, f);

	/* offsets count from the oldest kept: the read cursor moves back */
	if (ts->cur) {
		ts->cur--;
		ts->cur_at -= fl;
	}
	ts->used -= fl;
	ts->head = (ts->head + 1) % ts->cap;
	ts->count--;
	/* every chunk but the newest has frames: the oldest frame is in the oldest */
	if (ts->oldest && !--ts->oldest->live && ts->oldest != ts->newest)
		chunk_free(ts);
}

void tps_clear(struct tp_store *ts)
{
	while (ts->count)
		drop_oldest(ts);
	while (ts->oldest)
		chunk_free(ts);
	ts->head = 0;
	ts->created = 0;
	ts->cur = 0;
	ts->cur_at = 0;
}

void tps_free(struct tp_store *ts)
{
	tps_clear(ts);
	free(ts->frames);
	ts->frames = NULL;
	ts->cap = 0;
}

void tps_set_size(struct tp_store *ts, size_t size)
{
	ts->size = size > TPS_MAX_SIZE ? TPS_MAX_SIZE : size;
	while (ts->count && ts->used > ts->size)
		drop_oldest(ts);
}

/* Room for one more frame pointer: the ring is copied out in order into a larger one. */
static int grow(struct tp_store *ts)
{
	size_t cap = ts->cap ? ts->cap * 2 : 64;
	uint8_t **v;

	if (ts->count < ts->cap)
		return 0;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ts->count; i++)
		v[i] = slot(ts, i);
	free(ts->frames);
	ts->frames = v;
	ts->cap = cap;
	ts->head = 0;
	return 0;
}

/* need bytes at the end of the newest chunk, or of a new one; NULL: no memory. */
static uint8_t *chunk_room(struct tp_store *ts, size_t need)
{
	struct tp_chunk *c = ts->newest;
	size_t size = need > CHUNK - sizeof(*c) ? need : CHUNK - sizeof(*c);
	uint8_t *f;

	if (c && !c->live) /* all its frames dropped: the only chunk left */
		c->used = 0;
	if (c && !c->live && c->size < need) {
		chunk_free(ts);
		c = NULL;
	}
	if (!c || c->size - c->used < need) {
		/* its pages made at once: one fault each costs as much as the frames in it */
		c = mmap(NULL, sizeof(*c) + size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		*c = (struct tp_chunk){.size = size};
		if (ts->newest)
			ts->newest->next = c;
		else
			ts->oldest = c;
		ts->newest = c;
	}
	f = c->data + c->used;
	c->used += need;
	c->live++;
	return f;
}

void tps_set_regmap(struct tp_store *ts, const struct tpf_regmap *map)
{
	ts->map = map;
	ts->cur = 0; /* (the frames' sizes may change) */
	ts->cur_at = 0;
}

int tps_reserve(struct tp_store *ts, unsigned tpnum, size_t len, bool compact, uint8_t **data)
{
	size_t need = TPS_HDR + len, counts = need;
	uint16_t num = (uint16_t)tpnum;
	uint32_t len32 = (uint32_t)len;
	uint8_t *f;

	ts->created++;
	if (compact && (!ts->map || len <= TPF_COMPACT_LEN))
		return -EINVAL;
	if (compact)
		counts = need - TPF_COMPACT_LEN + ts->map->len;
	if (len > UINT32_MAX || counts > ts->size)
		return -ENOSPC;
	if (ts->used + counts > ts->size && !ts->circular)
		return -ENOSPC;
	while (ts->used + counts > ts->size)
		drop_oldest(ts);
	if (grow(ts) < 0 || !(f = chunk_room(ts, need)))
		return -ENOMEM;
	memcpy(f, &num, 2);
	memcpy(f + 2, &len32, 4);
	ts->frames[(ts->head + ts->count) % ts->cap] = f;
	ts->count++;
	ts->used += counts;
	*data = f + TPS_HDR;
	return 0;
}

int tps_add(struct tp_store *ts, unsigned tpnum, const uint8_t *data, size_t len)
{
	uint8_t *d;
	int err = tps_reserve(ts, tpnum, len, false, &d);

	if (!err && len)
		memcpy(d, data, len);
	return err;
}

const uint8_t *tps_frame(const struct tp_store *ts, size_t n, unsigned *tpnum, size_t *len)
{
	uint16_t num;
	uint8_t *f;

	if (n >= ts->count)
		return NULL;
	f = slot(ts, n);
	memcpy(&num, f, 2);
	if (tpnum)
		*tpnum = num;
	if (len)
		*len = stored_len(f);
	return f + TPS_HDR;
}

static void expand_regs(const struct tpf_regmap *m, const uint8_t *r, uint8_t *out)
{
	memcpy(out, m->tmpl, m->len);
	for (size_t i = 0; i < m->n; i++) /* (little-endian: the low bytes) */
		memcpy(out + m->regs[i].off, r + 8 * (size_t)m->regs[i].src, m->regs[i].size);
}

const uint8_t *tps_regs(const struct tp_store *ts, const uint8_t *data, size_t len, size_t regsize,
			uint8_t *buf)
{
	const struct tpf_regmap *m = ts->map;

	if (len > TPF_COMPACT_LEN && data[0] == TPF_COMPACT) {
		if (!m || m->len != regsize || regsize > TPS_REGS_MAX)
			return NULL;
		expand_regs(m, data + 1, buf);
		return buf;
	}
	return tpf_regs(data, len, regsize);
}

/* Compact frame f as gdbserver lays it out (frame_bytes of it, at out). */
static void expand_frame(const struct tp_store *ts, const uint8_t *f, uint8_t *out)
{
	size_t rest = stored_len(f) - 1 - TPF_COMPACT_LEN;
	uint32_t len32 = (uint32_t)(1 + ts->map->len + rest);

	memcpy(out, f, 2);
	memcpy(out + 2, &len32, 4);
	out[TPS_HDR] = 'R';
	expand_regs(ts->map, f + TPS_HDR + 1, out + TPS_HDR + 1);
	memcpy(out + TPS_HDR + 1 + ts->map->len, f + TPS_HDR + 1 + TPF_COMPACT_LEN, rest);
}

/* Move the cursor to the frame holding byte off (off < ts->used). */
static void seek(struct tp_store *ts, uint64_t off)
{
	while (ts->cur && off < ts->cur_at) {
		ts->cur--;
		ts->cur_at -= frame_bytes(ts, slot(ts, ts->cur));
	}
	while (ts->cur < ts->count) {
		size_t fl = frame_bytes(ts, slot(ts, ts->cur));

		if (off < ts->cur_at + fl)
			return;
		ts->cur_at += fl;
		ts->cur++;
	}
}

size_t tps_read_raw(struct tp_store *ts, uint64_t off, uint8_t *out, size_t n)
{
	size_t got = 0;

	if (off >= ts->used)
		return 0;
	seek(ts, off);
	while (ts->cur < ts->count && got < n) {
		const uint8_t *f = slot(ts, ts->cur);
		size_t fl = frame_bytes(ts, f), k = (size_t)(off - ts->cur_at), take;
		uint8_t *x;

		take = fl - k < n - got ? fl - k : n - got;
		if (!compact(ts, f)) {
			memcpy(out + got, f + k, take);
		} else if ((x = malloc(fl))) {
			expand_frame(ts, f, x);
			memcpy(out + got, x + k, take);
			free(x);
		} else {
			return got; /* (gdb asks again) */
		}
		got += take;
		off += take;
		if (k + take < fl)
			break; /* (the cursor stays on a frame read in part) */
		ts->cur_at += fl;
		ts->cur++;
	}
	return got;
}

void tpf_put_regs(struct buf *b, const uint8_t *regs, size_t len)
{
	buf_putc(b, 'R');
	buf_append(b, regs, len);
}

void tpf_put_mem(struct buf *b, uint64_t addr, const uint8_t *bytes, size_t len)
{
	while (len) {
		uint16_t n = len > 65535 ? 65535 : (uint16_t)len;

		buf_putc(b, 'M');
		buf_append(b, &addr, 8);
		buf_append(b, &n, 2);
		buf_append(b, bytes, n);
		addr += n;
		bytes += n;
		len -= n;
	}
}

void tpf_put_tsv(struct buf *b, int32_t num, int64_t val)
{
	buf_putc(b, 'V');
	buf_append(b, &num, 4);
	buf_append(b, &val, 8);
}

/* One block of a frame, as read by walk(). */
struct tpf_block {
	char type;
	const uint8_t *body; /* R: the registers; M: the bytes; V: the value */
	size_t len;	     /* R: regsize; M: the length; V: 8 */
	uint64_t addr;	     /* M */
	int32_t num;	     /* V */
};

/* The block at data[*pos], moving *pos past it; false at the end or at a bad block. */
static bool walk(const uint8_t *data, size_t len, size_t regsize, size_t *pos,
		 struct tpf_block *blk)
{
	size_t p = *pos, left;
	uint16_t n;

	if (p >= len)
		return false;
	left = len - p - 1;
	blk->type = (char)data[p++];
	switch (blk->type) {
	case TPF_COMPACT: /* (the agent's registers: tps_regs expands them) */
		if (left < TPF_COMPACT_LEN)
			return false;
		blk->body = data + p;
		blk->len = TPF_COMPACT_LEN;
		*pos = p + TPF_COMPACT_LEN;
		return true;
	case 'R':
		if (left < regsize)
			return false;
		blk->body = data + p;
		blk->len = regsize;
		*pos = p + regsize;
		return true;
	case 'M':
		if (left < 10)
			return false;
		memcpy(&blk->addr, data + p, 8);
		memcpy(&n, data + p + 8, 2);
		if (left - 10 < n)
			return false;
		blk->body = data + p + 10;
		blk->len = n;
		*pos = p + 10 + n;
		return true;
	case 'V':
		if (left < 12)
			return false;
		memcpy(&blk->num, data + p, 4);
		blk->body = data + p + 4;
		blk->len = 8;
		*pos = p + 12;
		return true;
	}
	return false;
}

const uint8_t *tpf_regs(const uint8_t *data, size_t len, size_t regsize)
{
	struct tpf_block blk;
	size_t pos = 0;

	while (walk(data, len, regsize, &pos, &blk))
		if (blk.type == 'R')
			return blk.body;
	return NULL;
}

size_t tpf_read_mem(const uint8_t *data, size_t len, size_t regsize, uint64_t addr, uint8_t *out,
		    size_t n)
{
	struct tpf_block blk;
	size_t pos = 0, k;

	while (walk(data, len, regsize, &pos, &blk)) {
		if (blk.type != 'M' || addr < blk.addr || addr - blk.addr >= blk.len)
			continue;
		k = (size_t)(addr - blk.addr);
		if (n > blk.len - k)
			n = blk.len - k;
		memcpy(out, blk.body + k, n);
		return n;
	}
	return 0;
}

int tpf_read_tsv(const uint8_t *data, size_t len, size_t regsize, int32_t num, int64_t *val)
{
	struct tpf_block blk;
	size_t pos = 0;
	int err = -ENOENT;

	/* the last one: `collect $v += 1` records v before and after */
	while (walk(data, len, regsize, &pos, &blk))
		if (blk.type == 'V' && blk.num == num) {
			memcpy(val, blk.body, 8);
			err = 0;
		}
	return err;
}

void tpf_info_xml(const uint8_t *data, size_t len, size_t regsize, struct buf *out)
{
	struct tpf_block blk;
	size_t pos = 0;

	buf_puts(out, "<traceframe-info>\n");
	while (walk(data, len, regsize, &pos, &blk)) {
		if (blk.type == 'M')
			buf_printf(out, "<memory start=\"0x%llx\" length=\"0x%zx\"/>\n",
				   (unsigned long long)blk.addr, blk.len);
		else if (blk.type == 'V')
			buf_printf(out, "<tvar id=\"%d\"/>\n", (int)blk.num);
	}
	buf_puts(out, "</traceframe-info>\n");
}
