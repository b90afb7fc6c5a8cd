/*
 * elf_eh.c: the function around an address from a file's unwind tables
 * (.eh_frame_hdr's search table and the FDE it points at), for what the
 * symbols cannot say: a stripped program's functions, and whether a
 * function has C++ landing pads (an LSDA), which the unwinder jumps to
 * without any jump in the code.
 *
 * The x86-64 ABI requires .eh_frame for every function, stripped or not
 * (gcc emits it for i386 Linux programs too),
 * and the linker's PT_GNU_EH_FRAME points at its sorted index. Every
 * offset, length and encoding comes from a file that may be anything: each
 * is checked before use, and an encoding we do not read is an answer of
 * "not found", never a guess.
 */
#include "elf_func.h"
#include "elf_int.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DW_EH_PE_omit	 0xff
#define DW_EH_PE_absptr	 0x00
#define DW_EH_PE_udata4	 0x03
#define DW_EH_PE_sdata4	 0x0b
#define DW_EH_PE_udata8	 0x04
#define DW_EH_PE_sdata8	 0x0c
#define DW_EH_PE_pcrel	 0x10
#define DW_EH_PE_datarel 0x30
#define EH_MAX		 (64u << 20) /* bigger than any real table: a broken file */

/* A piece of the file read into memory, with the address its first byte has. */
struct eh_buf {
	const uint8_t *b;
	size_t len;
	uint64_t addr;
	size_t ptr_size; /* an absptr's bytes: 4 in a 32-bit file */
};

/* Read an encoded pointer at *at; false if out of bounds or an encoding we do not read. */
static bool eh_ptr(const struct eh_buf *e, size_t *at, uint8_t enc, uint64_t datarel, uint64_t *out)
{
	uint64_t base = 0, v;
	size_t n;

	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		base = e->addr + *at;
		break;
	case DW_EH_PE_datarel:
		base = datarel;
		break;
	default:
		return false;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		n = 4;
		break;
	case DW_EH_PE_absptr:
		n = e->ptr_size;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		n = 8;
		break;
	default:
		return false;
	}
	if (*at > e->len || e->len - *at < n)
		return false;
	if (n == 4) { /* (a 32-bit absptr: unsigned) */
		uint32_t u;

		memcpy(&u, e->b + *at, 4);
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)u : u;
	} else {
		memcpy(&v, e->b + *at, 8);
	}
	*at += n;
	*out = base + v;
	return true;
}

static bool eh_uleb(const struct eh_buf *e, size_t *at, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *at < e->len && shift < 64; shift += 7) {
		uint8_t c = e->b[(*at)++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* What a CIE says of its FDEs: their pointer encoding, whether they carry an LSDA. */
struct eh_cie {
	uint8_t fde_enc;
	uint8_t lsda_enc; /* DW_EH_PE_omit: no LSDA */
	bool has_aug;	  /* 'z': FDEs have an augmentation length */
};

static bool eh_cie_read(const struct eh_buf *e, size_t at, struct eh_cie *c)
{
	uint64_t skip, auglen;
	const char *aug;
	size_t end;
	uint32_t len, id;

	*c = (struct eh_cie){.fde_enc = DW_EH_PE_absptr, .lsda_enc = DW_EH_PE_omit};
	if (at > e->len || e->len - at < 9)
		return false;
	memcpy(&len, e->b + at, 4);
	memcpy(&id, e->b + at + 4, 4);
	if (len == 0xffffffff || id != 0 || len > e->len - at - 4)
		return false;
	end = at + 4 + len;
	at += 9; /* length, id, version */
	aug = (const char *)e->b + at;
	if (!memchr(aug, '\0', end - at))
		return false;
	at += strlen(aug) + 1;
	if (aug[0] == 'e' && aug[1] == 'h')
		return false; /* an old gcc's: not read */
	/* code alignment, data alignment (sleb: its bytes skipped alike), return register */
	if (!eh_uleb(e, &at, &skip) || !eh_uleb(e, &at, &skip) || !eh_uleb(e, &at, &skip))
		return false;
	if (aug[0] != 'z')
		return aug[0] == '\0';
	c->has_aug = true;
	if (!eh_uleb(e, &at, &auglen) || auglen > end - at)
		return false;
	for (const char *a = aug + 1; *a; a++) {
		if (at >= end)
			return false;
		if (*a == 'R')
			c->fde_enc = e->b[at++];
		else if (*a == 'L')
			c->lsda_enc = e->b[at++];
		else if (*a == 'P') {
			uint8_t enc = e->b[at++];
			uint64_t pers;

			if (!eh_ptr(e, &at, enc & 0x7f, 0, &pers))
				return false;
		} else if (*a != 'S' && *a != 'B')
			return false;
	}
	return true;
}

/* The FDE at fde (an offset in e): the range it covers and whether it has an LSDA. */
static bool eh_fde_read(const struct eh_buf *e, size_t fde, struct elf_func *out)
{
	struct eh_cie cie;
	uint64_t start, range, auglen, lsda = 0;
	size_t at = fde + 8;
	uint32_t len, cie_off;

	if (fde > e->len || e->len - fde < 8)
		return false;
	memcpy(&len, e->b + fde, 4);
	memcpy(&cie_off, e->b + fde + 4, 4);
	if (len == 0xffffffff || len > e->len - fde - 4 || cie_off == 0 || cie_off > fde + 4 ||
	    !eh_cie_read(e, fde + 4 - cie_off, &cie))
		return false;
	if (!eh_ptr(e, &at, cie.fde_enc, 0, &start) ||
	    !eh_ptr(e, &at, cie.fde_enc & 0x0f, 0, &range))
		return false;
	if (cie.has_aug && !eh_uleb(e, &at, &auglen))
		return false;
	if (cie.lsda_enc != DW_EH_PE_omit && !eh_ptr(e, &at, cie.lsda_enc & 0x7f, 0, &lsda))
		return false;
	out->start = start;
	out->size = range;
	out->has_lsda = lsda != 0;
	return true;
}

/*
 * The index (.eh_frame_hdr, at hdr_addr) is a table of (start, FDE)
 * pairs sorted by start, both relative to the index itself; the FDEs are
 * in .eh_frame, in the same loaded segment: e covers that segment.
 */
static int eh_lookup(const struct eh_buf *e, uint64_t hdr_addr, uint64_t vaddr,
		     struct elf_func *out)
{
	size_t at = hdr_addr - e->addr, lo = 0, hi;
	uint64_t frame, count, fde_addr, start;
	uint8_t enc_frame, enc_count, enc_table;

	if (hdr_addr < e->addr || at > e->len || e->len - at < 4 || e->b[at] != 1)
		return -ENOENT;
	enc_frame = e->b[at + 1];
	enc_count = e->b[at + 2];
	enc_table = e->b[at + 3];
	at += 4;
	if (enc_table != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    !eh_ptr(e, &at, enc_frame, hdr_addr, &frame) ||
	    !eh_ptr(e, &at, enc_count, hdr_addr, &count) || count > (e->len - at) / 8)
		return -ENOENT;
	hi = (size_t)count;
	while (lo < hi) { /* the last entry starting at or below vaddr */
		size_t mid = lo + (hi - lo) / 2, p = at + mid * 8;

		if (!eh_ptr(e, &p, enc_table, hdr_addr, &start))
			return -ENOENT;
		if (start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	at += (lo - 1) * 8 + 4;
	if (!eh_ptr(e, &at, enc_table, hdr_addr, &fde_addr) || fde_addr < e->addr ||
	    !eh_fde_read(e, fde_addr - e->addr, out) || vaddr < out->start ||
	    vaddr - out->start >= out->size)
		return -ENOENT;
	return 0;
}

int elf_eh_func(int fd, const Elf64_Ehdr *eh, uint64_t size, uint64_t vaddr, struct elf_func *out)
{
	Elf64_Phdr ph, hdr = {0}, seg = {0};
	struct eh_buf e;
	uint8_t *buf;
	int err;

	for (unsigned i = 0; i < eh->e_phnum && i < ELF_MAX_SECTIONS; i++) {
		if (!elf_phdr_at(fd, eh, size, i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_GNU_EH_FRAME)
			hdr = ph;
	}
	for (unsigned i = 0; hdr.p_type && i < eh->e_phnum && i < ELF_MAX_SECTIONS; i++) {
		if (!elf_phdr_at(fd, eh, size, i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD && hdr.p_vaddr >= ph.p_vaddr &&
		    hdr.p_vaddr - ph.p_vaddr < ph.p_filesz)
			seg = ph;
	}
	if (!seg.p_type || seg.p_filesz > EH_MAX)
		return -ENOENT;
	buf = malloc(seg.p_filesz ? seg.p_filesz : 1);
	if (!buf)
		return -ENOMEM;
	err = -ENOENT;
	if (elf_read_at(fd, seg.p_offset, buf, seg.p_filesz, size)) {
		e = (struct eh_buf){buf, seg.p_filesz, seg.p_vaddr,
				    eh->e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8};
		err = eh_lookup(&e, hdr.p_vaddr, vaddr, out);
	}
	free(buf);
	return err;
}
