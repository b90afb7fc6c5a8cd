/*
 * The trace buffer and trace frame blocks (src/gdb/gdb_tp_store.c): frames
 * kept in order, the bound, circular dropping, frame numbers from the
 * oldest, qTBuffer's raw bytes laid end to end in gdbserver's layout,
 * register/memory/variable blocks found again, and frames cut anywhere
 * never read past their end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdb/gdb_tp_store.h"
#include "tap.h"

#define REGSZ 32

/* A frame as a hit makes it: registers, two memory ranges, a variable. */
static void make_frame(struct buf *b, unsigned i)
{
	uint8_t regs[REGSZ], mem[100];

	for (int k = 0; k < REGSZ; k++)
		regs[k] = (uint8_t)(i + k);
	for (int k = 0; k < 100; k++)
		mem[k] = (uint8_t)(i * 3 + k);
	buf_reset(b);
	tpf_put_regs(b, regs, REGSZ);
	tpf_put_mem(b, 0x1000 + i, mem, 100);
	tpf_put_mem(b, 0x9000, mem, 4);
	tpf_put_tsv(b, 7, 1000);
	tpf_put_tsv(b, 7, -(int64_t)i);
}

static void test_blocks(void)
{
	struct buf b, x;
	uint8_t out[200];
	const uint8_t *r;
	int64_t v = 0;

	buf_init(&b);
	buf_init(&x);
	make_frame(&b, 5);
	r = tpf_regs((uint8_t *)b.data, b.len, REGSZ);
	ok(r && r[0] == 5 && r[REGSZ - 1] == 5 + REGSZ - 1, "register block found");
	is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x1005, out, 200), 100,
	       "memory read from its block's start: the whole block");
	ok(out[0] == 15 && out[99] == 15 + 99, "... its bytes");
	is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x1005 + 60, out, 10), 10,
	       "inside a block: what was asked");
	ok(out[0] == 75, "... from the right offset");
	is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x1005 + 90, out, 50), 10,
	       "a read running past the block gets the block's part");
	is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x1004, out, 4), 0,
	       "a byte before the block: not collected");
	is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x9002, out, 8), 2,
	       "second block found too");
	is_int(tpf_read_tsv((uint8_t *)b.data, b.len, REGSZ, 7, &v), 0, "variable found");
	is_int(v, -5, "... the value recorded last");
	is_int(tpf_read_tsv((uint8_t *)b.data, b.len, REGSZ, 8, &v), -ENOENT, "another: not there");
	tpf_info_xml((uint8_t *)b.data, b.len, REGSZ, &x);
	ok(strstr(x.data, "<memory start=\"0x1005\" length=\"0x64\"/>") &&
		   strstr(x.data, "<memory start=\"0x9000\" length=\"0x4\"/>") &&
		   strstr(x.data, "<tvar id=\"7\"/>") && strstr(x.data, "</traceframe-info>"),
	   "traceframe-info lists memory and variables");
	/* every cut of the frame: nothing read past it (valgrind/ASan see the rest) */
	for (size_t cut = 0; cut < b.len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		size_t got;

		memcpy(copy, b.data, cut);
		got = tpf_read_mem(copy, cut, REGSZ, 0x9000, out, 4);
		tpf_regs(copy, cut, REGSZ);
		tpf_read_tsv(copy, cut, REGSZ, 7, &v);
		if (got && cut < b.len - 26) { /* the block ends 26 bytes before the end */
			ok(0, "cut at %zu: the second block read although cut", cut);
			free(copy);
			break;
		}
		free(copy);
	}
	ok(1, "frames cut at every byte: walks stop at the cut");
	{
		uint8_t big[70000];

		memset(big, 0xab, sizeof(big));
		buf_reset(&b);
		tpf_put_mem(&b, 0x100000, big, sizeof(big));
		is_int(b.len, 2 * 11 + sizeof(big), "70000 bytes: two blocks (u16 lengths)");
		is_int(tpf_read_mem((uint8_t *)b.data, b.len, REGSZ, 0x100000 + 65535, out, 8), 8,
		       "the second block starts where the first ends");
	}
	buf_free(&b);
	buf_free(&x);
}

static void test_store(void)
{
	struct tp_store ts;
	struct buf b;
	unsigned tp = 0;
	size_t len = 0, fsz;
	uint8_t raw[4096];
	const uint8_t *d;
	int fails = 0;

	buf_init(&b);
	tps_init(&ts);
	is_int(ts.size, 5 * 1024 * 1024, "default size: gdbserver's 5 MiB");
	make_frame(&b, 0);
	fsz = TPS_HDR + b.len;
	tps_set_size(&ts, fsz * 10);
	for (unsigned i = 0; i < 12; i++) {
		make_frame(&b, i);
		if (tps_add(&ts, i % 3 + 1, (uint8_t *)b.data, b.len) < 0)
			fails++;
	}
	is_int(fails, 2, "linear: frames past the bound refused");
	is_int(ts.count, 10, "ten kept");
	is_int(ts.created, 12, "twelve created");
	is_int(ts.used, fsz * 10, "used counts headers");
	d = tps_frame(&ts, 3, &tp, &len);
	ok(d && tp == 1 && len == b.len && tpf_regs(d, len, REGSZ)[0] == 3,
	   "frame 3 is the 4th hit");
	ok(!tps_frame(&ts, 10, NULL, NULL), "no frame 10");
	is_int(tps_read_raw(&ts, 0, raw, sizeof(raw)),
	       sizeof(raw) < fsz * 10 ? sizeof(raw) : fsz * 10, "raw read from 0");
	{
		uint16_t n;
		uint32_t l;

		memcpy(&n, raw, 2);
		memcpy(&l, raw + 2, 4);
		ok(n == 1 && l == b.len && raw[6] == 'R',
		   "raw layout: u16 tpnum, u32 size, blocks");
		memcpy(&n, raw + fsz, 2);
		ok(n == 2, "the next frame right after");
	}
	is_int(tps_read_raw(&ts, fsz * 10, raw, 10), 0, "raw read at the end: nothing");
	is_int(tps_read_raw(&ts, fsz * 3 - 2, raw, 4), 4, "raw read across two frames");
	ok(raw[2] == 1 && raw[3] == 0, "... the second's header follows");

	ts.circular = true;
	for (unsigned i = 12; i < 1000; i++) {
		make_frame(&b, i);
		if (tps_add(&ts, 1, (uint8_t *)b.data, b.len) < 0)
			fails++;
	}
	is_int(fails, 2, "circular: nothing refused");
	is_int(ts.count, 10, "still ten kept");
	d = tps_frame(&ts, 0, &tp, &len);
	ok(d && tpf_regs(d, len, REGSZ)[0] == (uint8_t)990, "the oldest kept is hit 990");
	d = tps_frame(&ts, 9, &tp, &len);
	ok(d && tpf_regs(d, len, REGSZ)[0] == (uint8_t)999, "the newest is hit 999");
	is_int(ts.created, 1000, "created counts the dropped");
	tps_set_size(&ts, fsz * 4 + 1);
	is_int(ts.count, 4, "shrunk: oldest dropped");
	d = tps_frame(&ts, 0, &tp, &len);
	ok(d && tpf_regs(d, len, REGSZ)[0] == (uint8_t)996, "... the newest stay");
	is_int(tps_add(&ts, 1, raw, fsz * 5), -ENOSPC, "a frame larger than the buffer: refused");
	tps_clear(&ts);
	ok(ts.count == 0 && ts.used == 0 && ts.created == 0, "cleared");
	is_int(tps_add(&ts, 1, NULL, 0), 0, "an empty frame");
	d = tps_frame(&ts, 0, &tp, &len);
	ok(d && len == 0 && !tpf_regs(d, len, REGSZ), "has no registers");
	tps_free(&ts);
	buf_free(&b);
}

/* A frame's bytes as test_chunks writes them: its number everywhere. */
static bool frame_is(const uint8_t *d, size_t len, unsigned i)
{
	for (size_t k = 0; k < len; k++)
		if (d[k] != (uint8_t)(i + k))
			return false;
	return true;
}

/*
 * Frames laid end to end in chunks (1 MiB) of which the oldest go as
 * their frames are dropped: many frames through a circular buffer of a
 * few chunks, written in place (tps_reserve), every kept one intact; a
 * frame larger than a chunk; the buffer emptied and used again.
 */
static void test_chunks(void)
{
	struct tp_store ts;
	unsigned tp, bad = 0, refused = 0;
	size_t len, first;
	uint8_t *d;
	const uint8_t *f;

	tps_init(&ts);
	tps_set_size(&ts, 3u << 20);
	ts.circular = true;
	for (unsigned i = 0; i < 20000; i++) {
		size_t n = 700 + i % 300;

		if (tps_reserve(&ts, 1 + i % 5, n, false, &d) < 0) {
			refused++;
			continue;
		}
		for (size_t k = 0; k < n; k++)
			d[k] = (uint8_t)(i + k);
	}
	is_int(refused, 0, "chunks: 20000 frames (17 MiB) through a 3 MiB circular buffer");
	ok(ts.used <= ts.size && ts.count > 3000, "... the bound kept, thousands of frames in it");
	first = 20000 - ts.count;
	for (size_t n = 0; n < ts.count; n++) {
		f = tps_frame(&ts, n, &tp, &len);
		if (!f || tp != 1 + (first + n) % 5 || len != 700 + (first + n) % 300 ||
		    !frame_is(f, len, (unsigned)(first + n)))
			bad++;
	}
	is_int(bad, 0, "... every frame kept intact, in order (its chunk not freed under it)");
	is_int(tps_reserve(&ts, 9, (3u << 19), false, &d), 0,
	       "a frame of 1.5 MiB: larger than a chunk");
	memset(d, 0x5a, 3u << 19);
	f = tps_frame(&ts, ts.count - 1, &tp, &len);
	ok(f && tp == 9 && len == (3u << 19) && f[0] == 0x5a && f[len - 1] == 0x5a,
	   "... kept whole");
	is_int(tps_add(&ts, 2, (const uint8_t *)"abc", 3), 0, "a small one after it");
	f = tps_frame(&ts, ts.count - 1, &tp, &len);
	ok(f && len == 3 && !memcmp(f, "abc", 3), "... in a chunk of its own");
	tps_clear(&ts);
	ok(ts.count == 0 && !ts.oldest && !ts.newest, "cleared: no chunk left");
	is_int(tps_add(&ts, 3, (const uint8_t *)"xy", 2), 0, "used again after the clear");
	f = tps_frame(&ts, 0, &tp, &len);
	ok(f && tp == 3 && len == 2 && !memcmp(f, "xy", 2), "... its frame there");
	tps_free(&ts);
}

/*
 * A fast tracepoint's frame: its registers kept as the agent's 26 values
 * (an 'r' block), made the 'R' block of the map when read (tps_regs),
 * in qTBuffer's bytes, and in every size (the bound, used): as if it
 * were stored expanded.
 */
static void test_compact(void)
{
	static const struct tpf_reg regs[] = {{.src = 0, .size = 8, .off = 0},
					      {.src = 16, .size = 8, .off = 8},
					      {.src = 17, .size = 4, .off = 16}};
	uint8_t tmpl[REGSZ], buf[TPS_REGS_MAX], raw[512], want[REGSZ], mem[4] = {1, 2, 3, 4};
	const struct tpf_regmap map = {tmpl, REGSZ, regs, 3};
	size_t len, expanded, flen = 1 + TPF_COMPACT_LEN;
	uint64_t v[26];
	struct tp_store ts;
	struct buf b;
	const uint8_t *r, *f;
	uint8_t *d;
	unsigned tp;
	uint32_t l;

	memset(tmpl, 0xee, sizeof(tmpl));
	for (int i = 0; i < 26; i++)
		v[i] = 0x1111111111111111ULL * (uint64_t)(i % 15 + 1);
	memcpy(want, tmpl, REGSZ);
	memcpy(want, &v[0], 8);
	memcpy(want + 8, &v[16], 8);
	memcpy(want + 16, &v[17], 4);
	buf_init(&b);
	tpf_put_mem(&b, 0x4000, mem, 4);
	flen += b.len;
	expanded = TPS_HDR + 1 + REGSZ + b.len;
	tps_init(&ts);
	is_int(tps_reserve(&ts, 4, flen, true, &d), -EINVAL, "compact: refused before a map");
	tps_set_regmap(&ts, &map);
	tps_set_size(&ts, expanded * 2);
	for (int i = 0; i < 2; i++) {
		is_int(tps_reserve(&ts, 4, flen, true, &d), 0, "compact frame kept");
		d[0] = TPF_COMPACT;
		memcpy(d + 1, v, TPF_COMPACT_LEN);
		memcpy(d + 1 + TPF_COMPACT_LEN, b.data, b.len);
		v[0]++;
	}
	is_int(tps_reserve(&ts, 4, flen, true, &d), -ENOSPC,
	       "its size counted expanded: two fit, not three");
	is_int(ts.count, 2, "... two kept");
	is_int(ts.used, expanded * 2, "... used: as two frames with their 'R' block");
	f = tps_frame(&ts, 1, &tp, &len);
	r = f ? tps_regs(&ts, f, len, REGSZ, buf) : NULL;
	want[0]++; /* (the second one: v[0] + 1) */
	ok(r && !memcmp(r, want, REGSZ), "its registers made the 'R' block: template and values");
	ok(r && !tps_regs(&ts, f, len, REGSZ + 8, buf), "... not for another register size");
	ok(f && tpf_read_mem(f, len, REGSZ, 0x4001, raw, 2) == 2 && raw[0] == 2,
	   "its memory found past the 'r' block");
	is_int(tps_read_raw(&ts, 0, raw, sizeof(raw)), expanded * 2,
	       "qTBuffer: both frames, expanded");
	memcpy(&l, raw + expanded + 2, 4);
	ok(raw[expanded + TPS_HDR] == 'R' && l == expanded - TPS_HDR &&
		   !memcmp(raw + expanded + TPS_HDR + 1, want, REGSZ) &&
		   !memcmp(raw + expanded + TPS_HDR + 1 + REGSZ, b.data, b.len),
	   "... in gdbserver's layout: its size, an 'R' block, the memory block");
	is_int(tps_read_raw(&ts, expanded + 10, raw, 5), 5, "a read inside an expanded frame");
	ok(!memcmp(raw, want + 3, 5), "... the right bytes");
	tps_free(&ts);
	buf_free(&b);
}

/*
 * The bytes qTBuffer must hand out, made from the frames one by one
 * (tps_frame, tps_regs): each header, then its data, an 'r' block made
 * 'R'. Into out (room enough); how many.
 */
static size_t raw_ref(const struct tp_store *ts, uint8_t *out)
{
	uint8_t regs[TPS_REGS_MAX];
	size_t n = 0, len;
	const uint8_t *d;
	unsigned tp;

	for (size_t i = 0; (d = tps_frame(ts, i, &tp, &len)); i++) {
		uint16_t num = (uint16_t)tp;
		uint32_t l = (uint32_t)len;
		bool c = len > TPF_COMPACT_LEN && d[0] == TPF_COMPACT;

		if (c)
			l = (uint32_t)(len - TPF_COMPACT_LEN + REGSZ);
		memcpy(out + n, &num, 2);
		memcpy(out + n + 2, &l, 4);
		n += TPS_HDR;
		if (!c) {
			memcpy(out + n, d, len);
			n += len;
			continue;
		}
		out[n++] = 'R';
		memcpy(out + n, tps_regs(ts, d, len, REGSZ, regs), REGSZ);
		n += REGSZ;
		memcpy(out + n, d + 1 + TPF_COMPACT_LEN, len - 1 - TPF_COMPACT_LEN);
		n += len - 1 - TPF_COMPACT_LEN;
	}
	return n;
}

/* Frame i: a normal one (make_frame) or, one in three, a compact one of 'r' and 'M'. */
static void add_mixed(struct tp_store *ts, struct buf *b, unsigned i)
{
	uint64_t v[26];
	uint8_t *d;

	if (i % 3) {
		make_frame(b, i);
		tps_add(ts, i % 7 + 1, (uint8_t *)b->data, b->len);
		return;
	}
	for (int k = 0; k < 26; k++)
		v[k] = i * 1000 + (uint64_t)k;
	buf_reset(b);
	tpf_put_mem(b, 0x5000 + i, (const uint8_t *)v, i % 50);
	if (tps_reserve(ts, 9, 1 + TPF_COMPACT_LEN + b->len, true, &d) < 0)
		return;
	d[0] = TPF_COMPACT;
	memcpy(d + 1, v, TPF_COMPACT_LEN);
	memcpy(d + 1 + TPF_COMPACT_LEN, b->data, b->len);
}

/* Read the whole buffer in pieces of 1..max bytes from off on: the same as ref? */
static bool read_seq(struct tp_store *ts, uint64_t off, const uint8_t *ref, size_t n, size_t max,
		     uint8_t *got)
{
	while (off < n) {
		size_t want = 1 + (size_t)rand() % max, r = tps_read_raw(ts, off, got, want);

		if (r != (want < n - off ? want : n - off) || memcmp(got, ref + off, r))
			return false;
		off += r;
	}
	return tps_read_raw(ts, off, got, 1) == 0;
}

/*
 * tps_read_raw goes on from where the last read stopped: reads in order,
 * backwards, at random offsets, across frames dropped from a circular
 * buffer between two reads, after a clear (QTinit) and a new size, all
 * the bytes the frames make (raw_ref). And its cost: in order, a read
 * looks at the frames it returns only.
 */
static void test_cursor(void)
{
	static const struct tpf_reg regs[] = {{.src = 0, .size = 8, .off = 0},
					      {.src = 16, .size = 8, .off = 8}};
	static uint8_t ref[1 << 20], got[1 << 16];
	uint8_t tmpl[REGSZ];
	const struct tpf_regmap map = {tmpl, REGSZ, regs, 2};
	struct tp_store ts;
	struct buf b;
	size_t n, bad = 0;
	unsigned i;

	srand(7);
	memset(tmpl, 0x5a, sizeof(tmpl));
	buf_init(&b);
	tps_init(&ts);
	tps_set_regmap(&ts, &map);
	tps_set_size(&ts, 200000);
	for (i = 0; i < 1000; i++)
		add_mixed(&ts, &b, i);
	n = raw_ref(&ts, ref);
	is_int(n, ts.used, "the frames' bytes: what the buffer counts");
	ok(read_seq(&ts, 0, ref, n, 3000, got), "read in order in pieces of any size: the frames");
	ok(read_seq(&ts, 0, ref, n, 7, got), "... in pieces of a few bytes");
	for (int k = 0; k < 2000; k++) {
		uint64_t off = (uint64_t)rand() % n;
		size_t want = 1 + (size_t)rand() % 5000, r = tps_read_raw(&ts, off, got, want);

		if (r != (want < n - off ? want : n - off) || memcmp(got, ref + off, r))
			bad++;
	}
	is_int(bad, 0, "2000 reads at random offsets, backwards and forwards");
	bad = 0;
	for (uint64_t off = n; off-- > 0;)
		if (tps_read_raw(&ts, off, got, 1) != 1 || got[0] != ref[off])
			bad++;
	is_int(bad, 0, "every byte read backwards, one by one");

	tps_set_size(&ts, 40000);
	ts.circular = true;
	for (int round = 0; round < 50; round++) {
		uint64_t off;

		n = raw_ref(&ts, ref);
		off = (uint64_t)rand() % n;
		if (tps_read_raw(&ts, off, got, 100) == 0)
			bad++;
		for (int k = 0; k < 1 + rand() % 40; k++) /* the oldest dropped */
			add_mixed(&ts, &b, i++);
		n = raw_ref(&ts, ref);
		off = (uint64_t)rand() % n;
		if (!read_seq(&ts, off, ref, n, 2000, got))
			bad++;
	}
	is_int(bad, 0, "circular: reads across frames dropped between them (50 rounds)");
	ok(ts.created > ts.count + 800, "... many dropped");
	tps_set_size(&ts, 15000);
	n = raw_ref(&ts, ref);
	ok(n == ts.used && read_seq(&ts, n / 2, ref, n, 500, got) &&
		   read_seq(&ts, 0, ref, n, 500, got),
	   "shrunk under the cursor: the frames kept");
	tps_clear(&ts);
	is_int(tps_read_raw(&ts, 0, got, 10), 0, "cleared (QTinit): nothing to read");
	tps_set_size(&ts, 100000);
	for (unsigned k = 0; k < 30; k++)
		add_mixed(&ts, &b, 5000 + k);
	n = raw_ref(&ts, ref);
	ok(read_seq(&ts, 0, ref, n, 300, got), "... then the new frames, from 0");

	/* the cost: 40 000 frames read in 100-byte pieces, in order */
	tps_clear(&ts);
	tps_set_size(&ts, TPS_MAX_SIZE);
	for (unsigned k = 0; k < 40000; k++)
		add_mixed(&ts, &b, k);
	{
		struct timespec t0, t1;
		uint64_t off = 0;
		double s;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while ((n = tps_read_raw(&ts, off, got, 100)))
			off += n;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		is_int(off, ts.used, "40 000 frames read in order in 100-byte pieces");
		diag("... in %.3f s (%zu reads)", s, (size_t)(ts.used / 100));
		ok(s < 1.0,
		   "... linear: under a second (a walk from the oldest at each read: seconds)");
	}
	tps_free(&ts);
	buf_free(&b);
}

int main(void)
{
	test_blocks();
	test_store();
	test_chunks();
	test_compact();
	test_cursor();
	return done_testing();
}
