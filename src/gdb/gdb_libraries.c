/*
 * gdb_libraries: the qXfer:libraries-svr4:read document.
 *
 * gdb could find the shared libraries itself by reading the dynamic
 * linker's list (r_debug and its link_map chain) word by word with 'm'
 * packets; one XML document built here saves those round trips on every
 * library load. We find the list the way the dynamic linker publishes it:
 * auxv gives the program headers (AT_PHDR/AT_PHNUM), PT_PHDR gives the
 * load bias, PT_DYNAMIC the dynamic section, whose DT_DEBUG entry points to
 * r_debug once ld.so has run. glibc's r_debug_extended (r_version >= 2)
 * chains the dlmopen namespaces through r_next.
 *
 * The output matches gdbserver's: the main program's entry is left out and
 * named by main-lm, libraries with an empty name (none yet) are skipped,
 * lmid is the address of the namespace's r_debug, and a process whose
 * loader has not run yet gets an empty list. The inferior's memory is not
 * trusted: every read can fail, list walks are bounded and names are
 * escaped into well-formed XML.
 */
#include "gdb_handlers.h"
#include "../util/xml.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on what the inferior can make us walk. */
#define SVR4_MAX_LIBS	    10000
#define SVR4_MAX_NAMESPACES 64
#define SVR4_MAX_PHNUM	    1024
#define SVR4_MAX_DYN	    4096

struct svr4 {
	struct engine *e;
	unsigned ptr;	  /* pointer size: 8 (amd64) or 4 (i386) */
	unsigned libs;	  /* link_map entries visited so far */
	uint64_t main_lm; /* the main program's link_map, 0 = not seen */
	struct buf *out;  /* <library/> elements */
};

static uint64_t get_word(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	/* x86 is little-endian, target and host alike. */
	memcpy(&v, p, size);
	return v;
}

static int read_exact(struct svr4 *sv, uint64_t addr, void *dst, size_t len)
{
	ssize_t n = engine_mem_read(sv->e, addr, dst, len);

	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

static int read_ptr(struct svr4 *sv, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];
	int ret = read_exact(sv, addr, b, sv->ptr);

	if (ret == 0)
		*v = get_word(b, sv->ptr);
	return ret;
}

/*
 * Read the NUL-terminated string at addr into out[PATH_MAX], page by page
 * so that a name near the end of a mapping still reads. -EIO if it cannot
 * be read or is not terminated within PATH_MAX.
 */
static int read_name(struct svr4 *sv, uint64_t addr, char out[PATH_MAX])
{
	size_t got = 0;

	while (got < PATH_MAX) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);

		if (chunk > PATH_MAX - got)
			chunk = PATH_MAX - got;
		if (read_exact(sv, addr + got, out + got, chunk) < 0)
			return -EIO;
		if (memchr(out + got, '\0', chunk))
			return 0;
		got += chunk;
	}
	return -EIO;
}

/*
 * Walk one link_map chain from lm, whose first entry must have l_prev ==
 * prev. With skip_main, the entry without a predecessor is the main
 * program: remembered as main-lm, not listed. Stops quietly at an
 * unreadable or inconsistent entry, as gdb itself does.
 */
static void walk_chain(struct svr4 *sv, uint64_t lm, uint64_t prev, uint64_t lmid, bool skip_main)
{
	char name[PATH_MAX];
	unsigned p = sv->ptr;

	while (lm && sv->libs < SVR4_MAX_LIBS) {
		uint8_t raw[5 * 8];
		uint64_t l_addr, l_name, l_ld, l_next, l_prev;

		sv->libs++;
		/* struct link_map starts with l_addr, l_name, l_ld, l_next, l_prev. */
		if (read_exact(sv, lm, raw, 5 * p) < 0)
			return;
		l_addr = get_word(raw, p);
		l_name = get_word(raw + p, p);
		l_ld = get_word(raw + 2 * p, p);
		l_next = get_word(raw + 3 * p, p);
		l_prev = get_word(raw + 4 * p, p);
		if (l_prev != prev)
			return; /* corrupt, or a cycle */
		if (skip_main && prev == 0) {
			sv->main_lm = lm;
		} else if (l_name && read_name(sv, l_name, name) == 0 && name[0]) {
			buf_puts(sv->out, "<library name=\"");
			xml_escape(sv->out, name);
			buf_printf(sv->out,
				   "\" lm=\"0x%" PRIx64 "\" l_addr=\"0x%" PRIx64
				   "\" l_ld=\"0x%" PRIx64 "\" lmid=\"0x%" PRIx64 "\"/>",
				   lm, l_addr, l_ld, lmid);
		}
		prev = lm;
		lm = l_next;
	}
}

/* Find the value of auxv entries AT_PHDR and AT_PHNUM. */
static int auxv_phdrs(struct svr4 *sv, uint64_t *phdr, uint64_t *phnum)
{
	char *auxv = NULL;
	size_t len = 0, step = 2 * (size_t)sv->ptr;
	int ret = engine_proc_read(sv->e, "auxv", &auxv, &len);

	if (ret < 0)
		return ret;
	*phdr = *phnum = 0;
	for (size_t off = 0; off + step <= len; off += step) {
		uint64_t type = get_word((uint8_t *)auxv + off, sv->ptr);
		uint64_t val = get_word((uint8_t *)auxv + off + sv->ptr, sv->ptr);

		if (type == AT_NULL)
			break;
		if (type == AT_PHDR)
			*phdr = val;
		else if (type == AT_PHNUM)
			*phnum = val;
	}
	free(auxv);
	return 0;
}

/*
 * The address of the program's dynamic section from its program headers:
 * PT_DYNAMIC, relocated by the load bias that PT_PHDR reveals (a program
 * without PT_PHDR is taken to be non-PIE, bias 0). 0 if there is none.
 */
static uint64_t find_dynamic(struct svr4 *sv, uint64_t phdr, uint64_t phnum, uint64_t *dyn_size)
{
	size_t phent = sv->ptr == 8 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	uint64_t dyn = 0, bias = 0;
	bool have_dyn = false;

	for (uint64_t i = 0; i < phnum && i < SVR4_MAX_PHNUM; i++) {
		uint64_t type, vaddr, memsz;

		if (sv->ptr == 8) {
			Elf64_Phdr ph;

			if (read_exact(sv, phdr + i * phent, &ph, sizeof(ph)) < 0)
				return 0;
			type = ph.p_type, vaddr = ph.p_vaddr, memsz = ph.p_memsz;
		} else {
			Elf32_Phdr ph;

			if (read_exact(sv, phdr + i * phent, &ph, sizeof(ph)) < 0)
				return 0;
			type = ph.p_type, vaddr = ph.p_vaddr, memsz = ph.p_memsz;
		}
		if (type == PT_PHDR) {
			bias = phdr - vaddr;
		} else if (type == PT_DYNAMIC) {
			dyn = vaddr;
			*dyn_size = memsz;
			have_dyn = true;
		}
	}
	if (!have_dyn)
		return 0;
	dyn += bias;
	if (sv->ptr == 4)
		dyn &= 0xffffffff;
	return dyn;
}

/*
 * The r_debug address from DT_DEBUG (0 until ld.so fills it in), or
 * NO_DT_DEBUG when the program has none (ld.so run as the program itself).
 */
#define NO_DT_DEBUG UINT64_MAX
static uint64_t find_r_debug(struct svr4 *sv, uint64_t dyn, uint64_t dyn_size)
{
	size_t entsz = 2 * (size_t)sv->ptr;
	uint64_t n = dyn_size / entsz;

	if (n > SVR4_MAX_DYN)
		n = SVR4_MAX_DYN;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t d[16];
		uint64_t tag;

		if (read_exact(sv, dyn + i * entsz, d, entsz) < 0)
			return NO_DT_DEBUG;
		tag = get_word(d, sv->ptr);
		if (tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			return get_word(d + sv->ptr, sv->ptr);
	}
	return NO_DT_DEBUG;
}

/* All namespaces from the base r_debug on. */
static void walk_namespaces(struct svr4 *sv, uint64_t r_debug)
{
	unsigned p = sv->ptr;
	uint64_t seen[SVR4_MAX_NAMESPACES];

	for (unsigned ns = 0; r_debug && ns < SVR4_MAX_NAMESPACES; ns++) {
		uint64_t r_map = 0, next = 0;
		uint32_t version;

		for (unsigned i = 0; i < ns; i++)
			if (seen[i] == r_debug)
				return;
		seen[ns] = r_debug;
		/* struct r_debug: int r_version; r_map; r_brk; int r_state; r_ldbase; r_next. */
		if (read_exact(sv, r_debug, &version, sizeof(version)) < 0 || version == 0 ||
		    read_ptr(sv, r_debug + p, &r_map) < 0)
			return;
		walk_chain(sv, r_map, 0, r_debug, ns == 0);
		if (version < 2 || read_ptr(sv, r_debug + 5 * p, &next) < 0)
			return;
		r_debug = next;
	}
}

/* The annex options start=, prev= and lmid= (hex), for incremental reads. */
static void parse_annex(const char *annex, uint64_t *start, uint64_t *prev, uint64_t *lmid)
{
	const char *p = annex ? annex : "";

	*start = *prev = *lmid = 0;
	while (*p) {
		const char *end = strchr(p, ';');
		const char *eq = strchr(p, '=');
		uint64_t *dst = NULL;

		if (!end)
			end = p + strlen(p);
		if (eq && eq < end) {
			size_t klen = (size_t)(eq - p);

			if (klen == 5 && memcmp(p, "start", 5) == 0)
				dst = start;
			else if (klen == 4 && memcmp(p, "prev", 4) == 0)
				dst = prev;
			else if (klen == 4 && memcmp(p, "lmid", 4) == 0)
				dst = lmid;
		}
		if (dst) {
			const char *v = eq + 1;
			uint64_t val;

			/* Unknown or malformed arguments are ignored, as the manual asks. */
			if (rsp_parse_hex(&v, end, &val) == 0 && v == end)
				*dst = val;
		}
		p = *end ? end + 1 : end;
	}
}

int gdb_libraries_svr4_xml(struct engine *e, const char *annex, struct buf *out)
{
	struct svr4 sv = {.e = e, .ptr = engine_arch(e)->ptr_size};
	uint64_t start, prev, lmid, phdr, phnum, dyn, dyn_size = 0, r_debug;
	struct buf libs;
	int ret;

	buf_init(&libs);
	sv.out = &libs;
	parse_annex(annex, &start, &prev, &lmid);
	if (start) {
		/* gdb asks for the entries from start on (it has the ones before). */
		walk_chain(&sv, start, prev, lmid, false);
	} else {
		ret = auxv_phdrs(&sv, &phdr, &phnum);
		if (ret < 0) {
			buf_free(&libs);
			return ret;
		}
		dyn = phdr && phnum ? find_dynamic(&sv, phdr, phnum, &dyn_size) : 0;
		r_debug = dyn ? find_r_debug(&sv, dyn, dyn_size) : NO_DT_DEBUG;
		if (r_debug == NO_DT_DEBUG) {
			/* no list to read here: an error makes gdb find it itself */
			buf_free(&libs);
			return -ENOENT;
		}
		walk_namespaces(&sv, r_debug);
	}
	buf_puts(out, "<library-list-svr4 version=\"1.0\"");
	if (sv.main_lm)
		buf_printf(out, " main-lm=\"0x%" PRIx64 "\"", sv.main_lm);
	buf_putc(out, '>');
	buf_append(out, libs.data, libs.len);
	buf_puts(out, "</library-list-svr4>");
	buf_free(&libs);
	return 0;
}
