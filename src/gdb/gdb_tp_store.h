/*
 * gdb_tp_store.h: the trace buffer of a tracepoint experiment, and the
 * blocks inside one trace frame (pure code, unit-tested).
 *
 * A frame is what one tracepoint hit (or one while-stepping step)
 * collected: blocks in gdbserver's trace-buffer layout, so qTBuffer (gdb's
 * tsave) hands the bytes out as they are:
 *
 *     frame:  u16 tracepoint number, u32 data size, the blocks
 *     'R' <register block: the 'g' packet's bytes>
 *     'M' <u64 address> <u16 length> <the bytes>
 *     'V' <i32 variable number> <i64 value>
 *
 * all little-endian (the host's: x86). The store is bounded (QTBuffer:size):
 * a frame that does not fit either ends the collection (the buffer is full)
 * or, circular, drops the oldest frames. Frames are numbered from the
 * oldest one kept, as gdbserver does.
 *
 * The frames are laid end to end in large chunks (huge pages where the
 * kernel gives them), not allocated one by one: a fast tracepoint in a
 * hot loop makes hundreds of thousands a second, and a malloc and the
 * page faults of each were most of their cost. A chunk goes when its
 * last frame is dropped (oldest first, so the oldest chunk first).
 *
 * A fast tracepoint's registers are kept as the in-process agent gives
 * them, an 'r' block of TPF_COMPACT_LEN bytes (26 little-endian u64, gdb's
 * amd64 registers 0..23 then fs_base and gs_base: struct
 * agent_trace_regs), a quarter of a 'g' block: they are expanded into an
 * 'R' block when read, with the store's map (tps_set_regmap). Sizes (the
 * bound, tstatus, qTBuffer's bytes) count such a frame expanded.
 */
#ifndef UTRACED_GDB_TP_STORE_H
#define UTRACED_GDB_TP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"

#define TPS_HDR		 6		    /* tracepoint number, data size */
#define TPS_DEFAULT_SIZE (5u * 1024 * 1024) /* gdbserver's default */
#define TPS_MAX_SIZE	 (1u << 30)

struct tp_chunk;

#define TPF_COMPACT	'r'
#define TPF_COMPACT_LEN (26 * 8)
#define TPS_REGS_MAX	2048 /* the largest 'R' block tps_regs expands into */

/* Where register src (of an 'r' block) goes in the 'R' block: size bytes at off. */
struct tpf_reg {
	uint8_t src;
	uint8_t size;
	uint16_t off;
};

/* An 'r' block made 'R': a template of len bytes (what the agent has not: zero), then regs. */
struct tpf_regmap {
	const uint8_t *tmpl;
	size_t len;
	const struct tpf_reg *regs;
	size_t n;
};

struct tp_store {
	uint8_t **frames;		  /* a ring of frames: header then data, in the chunks */
	struct tp_chunk *oldest, *newest; /* the chunks, in the order the frames came */
	size_t head;			  /* index of the oldest in frames[] */
	size_t count, cap;
	size_t used; /* bytes of the frames kept, headers included */
	size_t size; /* the bound */
	bool circular;
	unsigned long created;	      /* frames made since the last clear, dropped ones too */
	const struct tpf_regmap *map; /* for 'r' blocks: set before the first, fixed then */
	/* tps_read_raw's place: frame cur (from the oldest) starts at byte cur_at */
	size_t cur;
	uint64_t cur_at;
};

void tps_init(struct tp_store *ts);
void tps_free(struct tp_store *ts);
/* Drop every frame (QTinit, QTStart); the size and circular setting stay. */
void tps_clear(struct tp_store *ts);
/* A new bound (gdb's QTBuffer:size); frames beyond it are dropped, oldest first. */
void tps_set_size(struct tp_store *ts, size_t size);
/*
 * Keep a frame of tracepoint tpnum with data[0..len). 0, or -ENOSPC when it
 * does not fit (not circular and full, or larger than the whole buffer),
 * or -ENOMEM. The frame counts as created either way.
 */
int tps_add(struct tp_store *ts, unsigned tpnum, const uint8_t *data, size_t len);
/*
 * The same, the frame's len bytes of data to be written by the caller at
 * *data (before anything else is done with ts): no copy. compact: the
 * data starts with an 'r' block (counted as its 'R' block).
 */
int tps_reserve(struct tp_store *ts, unsigned tpnum, size_t len, bool compact, uint8_t **data);
void tps_set_regmap(struct tp_store *ts, const struct tpf_regmap *map);
/*
 * A frame's register block, regsize bytes: its 'R' block, or its 'r'
 * block expanded into buf (TPS_REGS_MAX bytes); NULL if it has none.
 */
const uint8_t *tps_regs(const struct tp_store *ts, const uint8_t *data, size_t len, size_t regsize,
			uint8_t *buf);
/* Frame n (0: the oldest kept): its data and tracepoint, NULL past the last. */
const uint8_t *tps_frame(const struct tp_store *ts, size_t n, unsigned *tpnum, size_t *len);
/*
 * qTBuffer: up to n bytes of the frames laid end to end from off ('r'
 * blocks as 'R'); how many. It starts from where the last read ended
 * (ts->cur), so reading the buffer in order costs its length, not its
 * square; a read elsewhere walks from there.
 */
size_t tps_read_raw(struct tp_store *ts, uint64_t off, uint8_t *out, size_t n);

/* Building a frame's data (into a struct buf; memory in blocks of at most 65535 bytes). */
void tpf_put_regs(struct buf *b, const uint8_t *regs, size_t len);
void tpf_put_mem(struct buf *b, uint64_t addr, const uint8_t *bytes, size_t len);
void tpf_put_tsv(struct buf *b, int32_t num, int64_t val);

/*
 * Reading one frame's data (hostile-safe: a block that runs past the end
 * ends the walk). regsize: the size of an 'R' block.
 */
const uint8_t *tpf_regs(const uint8_t *data, size_t len, size_t regsize);
/*
 * The bytes at addr from the first 'M' block holding addr: up to n into
 * out; how many (0: not collected). As gdbserver, a read that starts in a
 * block gets that block's part only; gdb asks again for the rest.
 */
size_t tpf_read_mem(const uint8_t *data, size_t len, size_t regsize, uint64_t addr, uint8_t *out,
		    size_t n);
/* The value of trace state variable num the frame recorded last (0, else -ENOENT). */
int tpf_read_tsv(const uint8_t *data, size_t len, size_t regsize, int32_t num, int64_t *val);
/* qXfer:traceframe-info: its <memory/> and <tvar/> elements into out. */
void tpf_info_xml(const uint8_t *data, size_t len, size_t regsize, struct buf *out);

#endif
