/*
 * trc_wire.c: struct trc_wire to text and back (see trc_wire.h).
 *
 * "v=7;s=32;a=40;t=0;T=0;y=0;x=0;r=0;z=0;Z=0;q=0;c=0;w=0;p=0;f=0;rdh=0;wrh=0;rd0=0;...;wr3=0;t64=HEX;t32=HEX;sig=HEX;
 * nab64=HEX;nab32=HEX;nvb64=HEX;nvb32=HEX;raw64=HEX;raw32=HEX;rd=HEX;wr=HEX;P=HEX":
 * numbers in decimal, sets as their 64-bit words in hex, most significant
 * digit first, word 0 first; P, -P's paths, as their bytes in hex, each
 * path with its NUL. Every key must be there exactly as the
 * version says: a daemon and a ustrace that disagree fail loudly rather
 * than trace with half the options.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rsp/rsp.h"
#include "trc_wire.h"

#define WIRE_VERSION 7
#define SET_WORDS    (TRC_SET_MAX / 64)
#define SET_HEX	     (SET_WORDS * 16)

struct wire_num {
	const char *key;
	unsigned max;
};

/* The numbers, in their order on the wire. */
enum {
	N_STR,
	N_COL,
	N_TSTAMP,
	N_TIME,
	N_FDS,
	N_XSTR,
	N_REL,
	N_OK,
	N_FAIL,
	N_QUIET,
	N_COUNT,
	N_WALL,
	N_PFX,
	N_FOLLOW,
	N_RDHIGH,
	N_WRHIGH,
	N_RDBIG,
	N_WRBIG = N_RDBIG + TRC_FDSET_BIG,
	N_NUMS = N_WRBIG + TRC_FDSET_BIG
};

_Static_assert(TRC_FDSET_BIG == 4, "one key per named big fd below");

static const struct wire_num nums[N_NUMS] = {
	[N_STR] = {"s", 1u << 20},
	[N_COL] = {"a", 1u << 20},
	[N_TSTAMP] = {"t", 3},
	[N_TIME] = {"T", 1},
	[N_FDS] = {"y", 1},
	[N_XSTR] = {"x", 2},
	[N_REL] = {"r", 1},
	[N_OK] = {"z", 1},
	[N_FAIL] = {"Z", 1},
	[N_QUIET] = {"q", TRC_QUIET_ALL},
	[N_COUNT] = {"c", TRC_COUNT_TOO},
	[N_WALL] = {"w", 1},
	[N_PFX] = {"p", TRC_PFX_PLAIN},
	[N_FOLLOW] = {"f", 1},
	[N_RDHIGH] = {"rdh", 1},
	[N_WRHIGH] = {"wrh", 1},
	[N_RDBIG] = {"rd0", TRC_FD_MAX},
	[N_RDBIG + 1] = {"rd1", TRC_FD_MAX},
	[N_RDBIG + 2] = {"rd2", TRC_FD_MAX},
	[N_RDBIG + 3] = {"rd3", TRC_FD_MAX},
	[N_WRBIG] = {"wr0", TRC_FD_MAX},
	[N_WRBIG + 1] = {"wr1", TRC_FD_MAX},
	[N_WRBIG + 2] = {"wr2", TRC_FD_MAX},
	[N_WRBIG + 3] = {"wr3", TRC_FD_MAX},
};

static void get_nums(const struct trc_wire *w, unsigned v[N_NUMS])
{
	v[N_STR] = w->o.strsize;
	v[N_COL] = w->o.acolumn;
	v[N_TSTAMP] = (unsigned)w->o.tstamp;
	v[N_TIME] = w->o.show_time;
	v[N_FDS] = w->o.decode_fds;
	v[N_XSTR] = (unsigned)w->o.xstrings;
	v[N_REL] = w->o.relative;
	v[N_OK] = w->o.only_ok;
	v[N_FAIL] = w->o.only_fail;
	v[N_QUIET] = (unsigned)w->o.quiet;
	v[N_COUNT] = w->o.count;
	v[N_WALL] = w->o.count_wall;
	v[N_PFX] = w->o.pfx;
	v[N_FOLLOW] = w->follow;
	v[N_RDHIGH] = w->o.read_fds.high;
	v[N_WRHIGH] = w->o.write_fds.high;
	for (int i = 0; i < TRC_FDSET_BIG; i++) {
		v[N_RDBIG + i] = w->o.read_fds.big[i];
		v[N_WRBIG + i] = w->o.write_fds.big[i];
	}
}

static void put_nums(struct trc_wire *w, const unsigned v[N_NUMS])
{
	w->o.strsize = v[N_STR];
	w->o.acolumn = v[N_COL];
	w->o.tstamp = (int)v[N_TSTAMP];
	w->o.show_time = v[N_TIME];
	w->o.decode_fds = v[N_FDS];
	w->o.xstrings = (int)v[N_XSTR];
	w->o.relative = v[N_REL];
	w->o.only_ok = v[N_OK];
	w->o.only_fail = v[N_FAIL];
	w->o.quiet = v[N_QUIET];
	w->o.count = (enum trc_count)v[N_COUNT];
	w->o.count_wall = v[N_WALL];
	w->o.pfx = (enum trc_pfx)v[N_PFX];
	w->follow = v[N_FOLLOW];
	w->o.read_fds.high = v[N_RDHIGH];
	w->o.write_fds.high = v[N_WRHIGH];
	for (int i = 0; i < TRC_FDSET_BIG; i++) {
		w->o.read_fds.big[i] = v[N_RDBIG + i];
		w->o.write_fds.big[i] = v[N_WRBIG + i];
	}
}

/* The per-syscall sets after signals, in their order on the wire. */
#define N_SETS 8
static const struct {
	const char *key;
	size_t off; /* in struct trc_opts */
} more_sets[N_SETS] = {
	{"nab64", offsetof(struct trc_opts, noabbrev[TRC_PERS_64])},
	{"nab32", offsetof(struct trc_opts, noabbrev[TRC_PERS_32])},
	{"nvb64", offsetof(struct trc_opts, noverbose[TRC_PERS_64])},
	{"nvb32", offsetof(struct trc_opts, noverbose[TRC_PERS_32])},
	{"raw64", offsetof(struct trc_opts, raw[TRC_PERS_64])},
	{"raw32", offsetof(struct trc_opts, raw[TRC_PERS_32])},
	{"rd", offsetof(struct trc_opts, read_fds.low)},
	{"wr", offsetof(struct trc_opts, write_fds.low)},
};

static int put_set(char *out, size_t room, const char *key, const struct trc_set *set)
{
	int n = snprintf(out, room, ";%s=", key);

	for (size_t i = 0; i < SET_WORDS && n >= 0 && (size_t)n < room; i++)
		n += snprintf(out + n, room - (size_t)n, "%016llx",
			      (unsigned long long)set->bits[i]);
	return n;
}

/* -P's paths: their bytes, NULs included, in hex ("" without -P). */
static int put_paths(char *out, size_t room, const struct trc_opts *o)
{
	size_t len = trc_paths_used(o);
	int n = snprintf(out, room, ";P=");

	for (size_t i = 0; i < len && n >= 0 && (size_t)n < room; i++)
		n += snprintf(out + n, room - (size_t)n, "%02x", (unsigned char)o->paths[i]);
	return n;
}

int trc_wire_encode(const struct trc_wire *w, char *out, size_t outlen)
{
	unsigned v[N_NUMS];
	size_t len;
	int n;

	get_nums(w, v);
	n = snprintf(out, outlen, "v=%d", WIRE_VERSION);
	for (int i = 0; i < N_NUMS && n >= 0 && (size_t)n < outlen; i++)
		n += snprintf(out + n, outlen - (size_t)n, ";%s=%u", nums[i].key, v[i]);
	len = n < 0 ? outlen : (size_t)n;
	if (len < outlen)
		len += (size_t)put_set(out + len, outlen - len, "t64", &w->o.trace[TRC_PERS_64]);
	if (len < outlen)
		len += (size_t)put_set(out + len, outlen - len, "t32", &w->o.trace[TRC_PERS_32]);
	if (len < outlen)
		len += (size_t)put_set(out + len, outlen - len, "sig", &w->o.signals);
	for (int i = 0; i < N_SETS && len < outlen; i++)
		len += (size_t)put_set(out + len, outlen - len, more_sets[i].key,
				       (const void *)((const char *)&w->o + more_sets[i].off));
	if (len < outlen)
		len += (size_t)put_paths(out + len, outlen - len, &w->o);
	return len < outlen ? (int)len : -1;
}

/* "KEY=" at *p, then what is up to the next ";" or the end, in *val and *vlen. */
static int field(const char **p, const char *end, const char *key, const char **val, size_t *vlen)
{
	size_t klen = strlen(key);
	const char *semi;

	if ((size_t)(end - *p) <= klen || memcmp(*p, key, klen) || (*p)[klen] != '=')
		return -1;
	*val = *p + klen + 1;
	semi = memchr(*val, ';', (size_t)(end - *val));
	*vlen = (size_t)((semi ? semi : end) - *val);
	*p = semi ? semi + 1 : end;
	return 0;
}

static int get_num(const char **p, const char *end, const char *key, unsigned max, unsigned *out)
{
	const char *val;
	size_t vlen;
	unsigned long v = 0;

	if (field(p, end, key, &val, &vlen) < 0 || vlen == 0 || vlen > 8)
		return -1;
	for (size_t i = 0; i < vlen; i++) {
		if (val[i] < '0' || val[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(val[i] - '0');
	}
	if (v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int get_set(const char **p, const char *end, const char *key, struct trc_set *set)
{
	const char *val;
	size_t vlen;

	if (field(p, end, key, &val, &vlen) < 0 || vlen != SET_HEX)
		return -1;
	for (size_t i = 0; i < SET_WORDS; i++) {
		uint8_t b[8];
		uint64_t word = 0;

		if (rsp_hex_decode(val + i * 16, 16, b, sizeof(b)) < 0)
			return -1;
		for (size_t k = 0; k < sizeof(b); k++)
			word = word << 8 | b[k];
		set->bits[i] = word;
	}
	return 0;
}

/* The paths as put_paths wrote them: each ends with a NUL, none is empty. */
static int get_paths(const char **p, const char *end, char paths[TRC_PATHS_LEN])
{
	const char *val;
	size_t vlen, n;

	if (field(p, end, "P", &val, &vlen) < 0 || vlen % 2 || vlen / 2 >= TRC_PATHS_LEN)
		return -1;
	n = vlen / 2;
	if (rsp_hex_decode(val, vlen, (uint8_t *)paths, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!paths[i] && (i == 0 || !paths[i - 1]))
			return -1; /* an empty path */
	}
	if (n && paths[n - 1])
		return -1;
	paths[n] = '\0';
	return 0;
}

int trc_wire_decode(struct trc_wire *w, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	unsigned v[N_NUMS], version;

	memset(w, 0, sizeof(*w));
	trc_opts_init(&w->o);
	if (get_num(&p, end, "v", 1000, &version) < 0 || version != WIRE_VERSION)
		return -1;
	for (int i = 0; i < N_NUMS; i++)
		if (get_num(&p, end, nums[i].key, nums[i].max, &v[i]) < 0)
			return -1;
	put_nums(w, v);
	if (get_set(&p, end, "t64", &w->o.trace[TRC_PERS_64]) < 0 ||
	    get_set(&p, end, "t32", &w->o.trace[TRC_PERS_32]) < 0 ||
	    get_set(&p, end, "sig", &w->o.signals) < 0)
		return -1;
	for (int i = 0; i < N_SETS; i++)
		if (get_set(&p, end, more_sets[i].key, (void *)((char *)&w->o + more_sets[i].off)) <
		    0)
			return -1;
	if (get_paths(&p, end, w->o.paths) < 0 || p != end)
		return -1;
	return 0;
}
