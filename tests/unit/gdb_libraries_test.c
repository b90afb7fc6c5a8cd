/*
 * The qXfer:libraries-svr4:read document (src/gdb/gdb_libraries.c), built
 * from fake process images: auxv, program headers, dynamic section,
 * r_debug and link_map chains laid out as ld.so does for amd64 and i386.
 * The engine calls it makes are stubbed here, so the file is included
 * rather than linked.
 */
#include "../../src/gdb/gdb_libraries.c"

#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

/* ---- a fake engine: a few memory regions and an auxv ---- */

struct region {
	uint64_t addr;
	size_t len;
	uint8_t *data;
};

struct engine {
	struct region mem[8];
	int nmem;
	struct arch_desc arch;
	uint8_t auxv[256];
	size_t auxv_len;
	int auxv_err;
	unsigned reads;
};

ssize_t engine_mem_read(struct engine *e, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	e->reads++;
	while (done < len) {
		const struct region *r = NULL;

		for (int i = 0; i < e->nmem; i++)
			if (addr + done >= e->mem[i].addr &&
			    addr + done < e->mem[i].addr + e->mem[i].len)
				r = &e->mem[i];
		if (!r)
			break;
		((uint8_t *)buf)[done] = r->data[addr + done - r->addr];
		done++;
	}
	return done ? (ssize_t)done : -EIO;
}

int engine_proc_read(struct engine *e, const char *name, char **out, size_t *len)
{
	if (strcmp(name, "auxv") != 0 || e->auxv_err)
		return e->auxv_err ? e->auxv_err : -ENOENT;
	*out = malloc(e->auxv_len);
	memcpy(*out, e->auxv, e->auxv_len);
	*len = e->auxv_len;
	return 0;
}

const struct arch_desc *engine_arch(const struct engine *e)
{
	return &e->arch;
}

/* ---- building an image ---- */

/* Offsets in the program image (vaddr 0 = load address with bias). */
#define PHDR_OFF  0x40
#define DYN_OFF	  0x300
#define RDBG_OFF  0x400
#define RDBG2_OFF 0x480
#define LM_OFF	  0x800	 /* link_maps, 0x40 apart */
#define NAME_OFF  0x2000 /* names, 0x100 apart */
#define IMG_SIZE  0x4000

struct img {
	struct engine e;
	uint8_t *mem;
	uint64_t base;
	unsigned ptr;
};

static void put(struct img *im, size_t off, uint64_t v, unsigned size)
{
	memcpy(im->mem + off, &v, size);
}

static uint64_t at(struct img *im, size_t off)
{
	return im->base + off;
}

static void auxv_add(struct img *im, uint64_t type, uint64_t val)
{
	memcpy(im->e.auxv + im->e.auxv_len, &type, im->ptr);
	memcpy(im->e.auxv + im->e.auxv_len + im->ptr, &val, im->ptr);
	im->e.auxv_len += 2 * im->ptr;
}

/* A PIE with PT_PHDR and PT_DYNAMIC whose DT_DEBUG holds r_debug (0 = not set yet). */
static void img_init(struct img *im, enum arch_kind kind, bool with_debug)
{
	memset(im, 0, sizeof(*im));
	im->ptr = kind == ARCH_I386 ? 4 : 8;
	im->base = kind == ARCH_I386 ? 0x56555000 : 0x555555554000;
	im->e.arch.kind = kind;
	im->e.arch.ptr_size = (uint8_t)im->ptr;
	im->mem = calloc(1, IMG_SIZE);
	im->e.mem[0] = (struct region){im->base, IMG_SIZE, im->mem};
	im->e.nmem = 1;

	uint32_t types[3] = {PT_PHDR, PT_LOAD, PT_DYNAMIC};
	uint64_t vaddrs[3] = {PHDR_OFF, 0, DYN_OFF};
	uint64_t sizes[3] = {3 * 56, IMG_SIZE, 4 * 2 * im->ptr};

	for (int i = 0; i < 3; i++) {
		if (im->ptr == 8) {
			Elf64_Phdr ph = {
				.p_type = types[i], .p_vaddr = vaddrs[i], .p_memsz = sizes[i]};

			memcpy(im->mem + PHDR_OFF + i * sizeof(ph), &ph, sizeof(ph));
		} else {
			Elf32_Phdr ph = {.p_type = types[i],
					 .p_vaddr = (Elf32_Addr)vaddrs[i],
					 .p_memsz = (Elf32_Word)sizes[i]};

			memcpy(im->mem + PHDR_OFF + i * sizeof(ph), &ph, sizeof(ph));
		}
	}
	/* DT_NEEDED, DT_DEBUG, DT_NULL */
	put(im, DYN_OFF, DT_NEEDED, im->ptr);
	put(im, DYN_OFF + im->ptr, 1, im->ptr);
	put(im, DYN_OFF + 2 * im->ptr, DT_DEBUG, im->ptr);
	put(im, DYN_OFF + 3 * im->ptr, with_debug ? at(im, RDBG_OFF) : 0, im->ptr);

	auxv_add(im, AT_PHENT, im->ptr == 8 ? 56 : 32);
	auxv_add(im, AT_PHDR, at(im, PHDR_OFF));
	auxv_add(im, AT_PHNUM, 3);
	auxv_add(im, AT_NULL, 0);

	put(im, RDBG_OFF, 1, 4); /* r_version */
}

static void set_rdebug(struct img *im, size_t off, uint32_t version, int first_lm, size_t next)
{
	put(im, off, version, 4);
	put(im, off + im->ptr, first_lm < 0 ? 0 : at(im, LM_OFF + 0x40 * first_lm), im->ptr);
	put(im, off + 5 * im->ptr, next ? at(im, next) : 0, im->ptr);
}

/* link_map i: name index (-1 = NULL), next and prev link_map indexes (-1 = none). */
static void set_lm(struct img *im, int i, int name, int next, int prev)
{
	size_t off = LM_OFF + 0x40 * i;

	put(im, off, 0x7f0000000000 + 0x100000 * i, im->ptr); /* l_addr */
	put(im, off + im->ptr, name < 0 ? 0 : at(im, NAME_OFF + 0x100 * name), im->ptr);
	put(im, off + 2 * im->ptr, 0x7f0000000e00 + 0x100000 * i, im->ptr); /* l_ld */
	put(im, off + 3 * im->ptr, next < 0 ? 0 : at(im, LM_OFF + 0x40 * next), im->ptr);
	put(im, off + 4 * im->ptr, prev < 0 ? 0 : at(im, LM_OFF + 0x40 * prev), im->ptr);
}

static void set_name(struct img *im, int i, const char *name)
{
	strcpy((char *)im->mem + NAME_OFF + 0x100 * i, name);
}

/* A main program and three libraries, the second with an empty name. */
static void std_chain(struct img *im)
{
	set_rdebug(im, RDBG_OFF, 1, 0, 0);
	set_name(im, 0, "");
	set_name(im, 1, "/lib/libfoo.so.1");
	set_name(im, 2, "");
	set_name(im, 3, "/lib/a&b<c>\"d'.so");
	set_lm(im, 0, 0, 1, -1);
	set_lm(im, 1, 1, 2, 0);
	set_lm(im, 2, 2, 3, 1);
	set_lm(im, 3, 3, -1, 2);
}

static char *xml(struct img *im, const char *annex, int *ret)
{
	static struct buf b;

	buf_free(&b);
	*ret = gdb_libraries_svr4_xml(&im->e, annex, &b);
	return b.data ? b.data : "";
}

static void lib(struct buf *b, struct img *im, int i, const char *name, uint64_t lmid)
{
	uint64_t mask = im->ptr == 4 ? 0xffffffff : UINT64_MAX;

	buf_printf(b,
		   "<library name=\"%s\" lm=\"0x%" PRIx64 "\" l_addr=\"0x%" PRIx64
		   "\" l_ld=\"0x%" PRIx64 "\" lmid=\"0x%" PRIx64 "\"/>",
		   name, at(im, LM_OFF + 0x40 * i),
		   (0x7f0000000000 + 0x100000 * (uint64_t)i) & mask,
		   (0x7f0000000e00 + 0x100000 * (uint64_t)i) & mask, lmid);
}

static void test_std(enum arch_kind kind, const char *what)
{
	struct img im;
	struct buf want;
	char *got;
	int ret;

	img_init(&im, kind, false);
	std_chain(&im);
	got = xml(&im, "", &ret);
	is_int(ret, 0, "%s: no DT_DEBUG yet: success", what);
	is_str(got, "<library-list-svr4 version=\"1.0\"></library-list-svr4>",
	       "%s: no DT_DEBUG yet: empty list without main-lm", what);
	free(im.mem);

	img_init(&im, kind, true);
	std_chain(&im);
	buf_init(&want);
	buf_printf(&want, "<library-list-svr4 version=\"1.0\" main-lm=\"0x%" PRIx64 "\">",
		   at(&im, LM_OFF));
	lib(&want, &im, 1, "/lib/libfoo.so.1", at(&im, RDBG_OFF));
	lib(&want, &im, 3, "/lib/a&amp;b&lt;c&gt;&quot;d&apos;.so", at(&im, RDBG_OFF));
	buf_puts(&want, "</library-list-svr4>");
	got = xml(&im, NULL, &ret);
	is_int(ret, 0, "%s: success", what);
	is_str(got, want.data, "%s: main skipped, empty name skipped, names escaped", what);

	/* gdb's incremental form: from link_map 1 on, its predecessor being 0. */
	buf_reset(&want);
	buf_puts(&want, "<library-list-svr4 version=\"1.0\">");
	lib(&want, &im, 3, "/lib/a&amp;b&lt;c&gt;&quot;d&apos;.so", 0xabc);
	buf_puts(&want, "</library-list-svr4>");
	char annex[128];

	snprintf(annex, sizeof(annex), "start=%" PRIx64 ";prev=%" PRIx64 ";lmid=abc;x=y",
		 at(&im, LM_OFF + 0x40 * 2), at(&im, LM_OFF + 0x40));
	got = xml(&im, annex, &ret);
	is_str(got, want.data, "%s: annex start/prev/lmid", what);
	snprintf(annex, sizeof(annex), "start=%" PRIx64 ";prev=%" PRIx64,
		 at(&im, LM_OFF + 0x40 * 2), at(&im, LM_OFF));
	got = xml(&im, annex, &ret);
	is_str(got, "<library-list-svr4 version=\"1.0\"></library-list-svr4>",
	       "%s: annex with a wrong prev: nothing", what);
	buf_free(&want);
	free(im.mem);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_hostile(void)
{
	struct img im;
	char *got;
	int ret;

	/* A cycle back to the first library: l_prev no longer matches. */
	img_init(&im, ARCH_AMD64, true);
	std_chain(&im);
	set_lm(&im, 3, 3, 1, 2);
	got = xml(&im, "", &ret);
	is_int(count(got, "<library "), 2, "cycle: each library once");

	/* Inconsistent l_prev in the middle: stop there. */
	std_chain(&im);
	set_lm(&im, 2, 2, 3, 0);
	got = xml(&im, "", &ret);
	is_int(count(got, "<library "), 1, "bad l_prev: list cut at the bad entry");

	/* Unreadable name, unterminated name, NUL-less end of memory. */
	std_chain(&im);
	put(&im, LM_OFF + 0x40 + 8, 0xdead0000, 8);
	memset(im.mem + IMG_SIZE - 16, 'x', 16);
	put(&im, LM_OFF + 3 * 0x40 + 8, at(&im, IMG_SIZE - 16), 8);
	got = xml(&im, "", &ret);
	is_int(count(got, "<library "), 0, "unreadable and unterminated names: skipped");
	ok(strstr(got, "main-lm=") != NULL, "...but main-lm is still given");

	/* Control characters and invalid UTF-8 cannot reach the XML. */
	std_chain(&im);
	set_name(&im, 1, "/lib/\x01tab\there\xff\xc3\xa9.so");
	got = xml(&im, "", &ret);
	ok(strstr(got, "name=\"/lib/?tab?here?\xc3\xa9.so\"") != NULL,
	   "controls and invalid UTF-8 become '?', valid UTF-8 stays");

	/* A name crossing a page boundary. */
	std_chain(&im);
	strcpy((char *)im.mem + 0x1ffa, "/lib/crossing.so");
	put(&im, LM_OFF + 0x40 + 8, at(&im, 0x1ffa), 8);
	got = xml(&im, "", &ret);
	ok(strstr(got, "name=\"/lib/crossing.so\"") != NULL, "name across a page boundary");

	/* A consistent chain far longer than the bound. */
	size_t n = 20000, lmsz = 5 * 8;
	uint8_t *big = calloc(n, lmsz);
	uint64_t bigbase = 0x100000000;

	for (size_t i = 0; i < n; i++) {
		uint64_t w[5] = {0, at(&im, NAME_OFF + 0x100), 0,
				 i + 1 < n ? bigbase + (i + 1) * lmsz : 0,
				 i ? bigbase + (i - 1) * lmsz : 0};

		memcpy(big + i * lmsz, w, sizeof(w));
	}
	im.e.mem[im.e.nmem++] = (struct region){bigbase, n * lmsz, big};
	set_name(&im, 1, "/lib/libfoo.so.1");
	put(&im, RDBG_OFF + 8, bigbase, 8);
	got = xml(&im, "", &ret);
	is_int(count(got, "<library "), SVR4_MAX_LIBS - 1, "long chain: bounded walk");
	im.e.nmem--;
	free(big);

	/* Program headers that say 2^32 entries, unreadable. */
	std_chain(&im);
	im.e.auxv_len = 0;
	auxv_add(&im, AT_PHDR, 0xdead0000);
	auxv_add(&im, AT_PHNUM, 0xffffffff);
	auxv_add(&im, AT_NULL, 0);
	im.e.reads = 0;
	got = xml(&im, "", &ret);
	ok(ret < 0 && !*got, "unreadable program headers: an error, so gdb looks itself");
	ok(im.e.reads < 10, "...found out without reading them all (%u reads)", im.e.reads);

	im.e.auxv_err = -ESRCH;
	got = xml(&im, "", &ret);
	is_int(ret, -ESRCH, "auxv unreadable: the error is returned");
	free(im.mem);
}

static void test_namespaces(void)
{
	struct img im;
	struct buf want;
	char *got;
	int ret;

	img_init(&im, ARCH_AMD64, true);
	std_chain(&im);
	/* r_debug_extended: a second namespace holding link_maps 4 and 5. */
	set_rdebug(&im, RDBG_OFF, 2, 0, RDBG2_OFF);
	set_rdebug(&im, RDBG2_OFF, 2, 4, 0);
	set_name(&im, 4, "/lib/libz.so.1");
	set_name(&im, 5, "/lib/libc.so.6");
	set_lm(&im, 4, 4, 5, -1);
	set_lm(&im, 5, 5, -1, 4);
	buf_init(&want);
	buf_printf(&want, "<library-list-svr4 version=\"1.0\" main-lm=\"0x%" PRIx64 "\">",
		   at(&im, LM_OFF));
	lib(&want, &im, 1, "/lib/libfoo.so.1", at(&im, RDBG_OFF));
	lib(&want, &im, 3, "/lib/a&amp;b&lt;c&gt;&quot;d&apos;.so", at(&im, RDBG_OFF));
	lib(&want, &im, 4, "/lib/libz.so.1", at(&im, RDBG2_OFF));
	lib(&want, &im, 5, "/lib/libc.so.6", at(&im, RDBG2_OFF));
	buf_puts(&want, "</library-list-svr4>");
	got = xml(&im, "", &ret);
	is_str(got, want.data, "namespaces: r_next followed, first entry of others kept");

	set_rdebug(&im, RDBG2_OFF, 2, 4, RDBG_OFF);
	got = xml(&im, "", &ret);
	is_str(got, want.data, "namespace cycle: each namespace once");

	set_rdebug(&im, RDBG_OFF, 1, 0, RDBG2_OFF);
	got = xml(&im, "", &ret);
	is_int(count(got, "<library "), 2, "r_version 1: r_next not trusted");
	buf_free(&want);
	free(im.mem);
}

int main(void)
{
	test_std(ARCH_AMD64, "amd64");
	test_std(ARCH_I386, "i386");
	test_hostile();
	test_namespaces();
	return done_testing();
}
