/*
 * elf_func.c: the function around an address of a mapped ELF file, from
 * its symbols (.symtab, else .dynsym), else from its unwind tables
 * (elf_eh.c), which also say whether it has C++ landing pads.
 *
 * The engine's patched breakpoints (src/engine/patch.c) replace several
 * instructions only after decoding the whole function around them, to
 * know that nothing jumps into the middle; this finds where the function
 * starts and ends. Every offset and count comes from a file that may be
 * anything: each is checked against the file's size before use. A 32-bit
 * file's headers are read into the 64-bit structures (e_ident keeps
 * ELFCLASS32: elf_phdr_at and the symbols read by it).
 */
#include "elf_func.h"
#include "elf_int.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SYMS (16u << 20) /* more than any real table: a broken file */

bool elf_read_at(int fd, uint64_t off, void *buf, size_t len, uint64_t size)
{
	if (off > size || len > size - off)
		return false;
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

static bool is32(const Elf64_Ehdr *eh)
{
	return eh->e_ident[EI_CLASS] == ELFCLASS32;
}

/* The ELF header of fd, a 32-bit one widened; false: not ELF, or not one we read. */
static bool ehdr_read(int fd, uint64_t size, Elf64_Ehdr *eh)
{
	Elf32_Ehdr e32;

	if (!elf_read_at(fd, 0, eh->e_ident, EI_NIDENT, size) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return false;
	if (eh->e_ident[EI_CLASS] == ELFCLASS64)
		return elf_read_at(fd, 0, eh, sizeof(*eh), size) &&
		       eh->e_phentsize == sizeof(Elf64_Phdr) &&
		       eh->e_shentsize == sizeof(Elf64_Shdr);
	if (eh->e_ident[EI_CLASS] != ELFCLASS32 || !elf_read_at(fd, 0, &e32, sizeof(e32), size) ||
	    e32.e_phentsize != sizeof(Elf32_Phdr) || e32.e_shentsize != sizeof(Elf32_Shdr))
		return false;
	eh->e_phoff = e32.e_phoff;
	eh->e_shoff = e32.e_shoff;
	eh->e_phnum = e32.e_phnum;
	eh->e_shnum = e32.e_shnum;
	eh->e_phentsize = sizeof(Elf32_Phdr);
	eh->e_shentsize = sizeof(Elf32_Shdr);
	return true;
}

bool elf_phdr_at(int fd, const Elf64_Ehdr *eh, uint64_t size, unsigned i, Elf64_Phdr *ph)
{
	Elf32_Phdr p;

	if (!is32(eh))
		return elf_read_at(fd, eh->e_phoff + (uint64_t)i * sizeof(*ph), ph, sizeof(*ph),
				   size);
	if (!elf_read_at(fd, eh->e_phoff + (uint64_t)i * sizeof(p), &p, sizeof(p), size))
		return false;
	*ph = (Elf64_Phdr){.p_type = p.p_type,
			   .p_flags = p.p_flags,
			   .p_offset = p.p_offset,
			   .p_vaddr = p.p_vaddr,
			   .p_paddr = p.p_paddr,
			   .p_filesz = p.p_filesz,
			   .p_memsz = p.p_memsz,
			   .p_align = p.p_align};
	return true;
}

static bool shdr_at(int fd, const Elf64_Ehdr *eh, uint64_t size, unsigned i, Elf64_Shdr *sh)
{
	Elf32_Shdr s;

	if (!is32(eh))
		return elf_read_at(fd, eh->e_shoff + (uint64_t)i * sizeof(*sh), sh, sizeof(*sh),
				   size);
	if (!elf_read_at(fd, eh->e_shoff + (uint64_t)i * sizeof(s), &s, sizeof(s), size))
		return false;
	*sh = (Elf64_Shdr){.sh_type = s.sh_type,
			   .sh_offset = s.sh_offset,
			   .sh_size = s.sh_size,
			   .sh_entsize = s.sh_entsize};
	return true;
}

/* Symbol i of a table read whole into syms, widened. */
static Elf64_Sym sym_at(const Elf64_Ehdr *eh, const void *syms, uint64_t i)
{
	Elf32_Sym s;
	Elf64_Sym r;

	if (!is32(eh)) {
		memcpy(&r, (const Elf64_Sym *)syms + i, sizeof(r));
		return r;
	}
	memcpy(&s, (const Elf32_Sym *)syms + i, sizeof(s));
	return (Elf64_Sym){.st_info = s.st_info,
			   .st_shndx = s.st_shndx,
			   .st_value = s.st_value,
			   .st_size = s.st_size};
}

/* The address (in the file's own numbering) of the byte at file offset off. */
static bool vaddr_of(int fd, const Elf64_Ehdr *eh, uint64_t size, uint64_t off, uint64_t *vaddr)
{
	Elf64_Phdr ph;

	for (unsigned i = 0; i < eh->e_phnum && i < ELF_MAX_SECTIONS; i++) {
		if (!elf_phdr_at(fd, eh, size, i, &ph))
			return false;
		if (ph.p_type != PT_LOAD || off < ph.p_offset || off - ph.p_offset >= ph.p_filesz)
			continue;
		*vaddr = ph.p_vaddr + (off - ph.p_offset);
		return true;
	}
	return false;
}

/* The FUNC symbol of table sh containing vaddr; 0 and its size, or -ENOENT. */
static int find_in(int fd, const Elf64_Ehdr *eh, const Elf64_Shdr *sh, uint64_t size,
		   uint64_t vaddr, struct elf_func *out)
{
	size_t ent = is32(eh) ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);
	uint64_t n = sh->sh_entsize == ent ? sh->sh_size / ent : 0;
	void *syms;
	int err = -ENOENT;

	if (n == 0 || n > MAX_SYMS || sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
		return -ENOENT;
	syms = malloc(n * ent);
	if (!syms)
		return -ENOMEM;
	if (!elf_read_at(fd, sh->sh_offset, syms, n * ent, size))
		goto out;
	for (uint64_t i = 0; i < n; i++) {
		const Elf64_Sym sym = sym_at(eh, syms, i), *s = &sym;

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
		    !s->st_size || vaddr < s->st_value || vaddr - s->st_value >= s->st_size)
			continue;
		out->start = s->st_value;
		out->size = s->st_size;
		out->has_lsda = false;
		err = 0;
		break;
	}
out:
	free(syms);
	return err;
}

int elf_func_at(int fd, uint64_t file_off, struct elf_func *out)
{
	struct elf_func eh_fn;
	uint64_t vaddr, size;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	struct stat st;
	int err = -ENOENT;

	if (fstat(fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (!ehdr_read(fd, size, &eh))
		return -ENOEXEC;
	if (!vaddr_of(fd, &eh, size, file_off, &vaddr))
		return -ENOENT;
	/* .symtab first (every function), .dynsym if stripped (exported ones) */
	for (unsigned want = SHT_SYMTAB; err == -ENOENT && want;
	     want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		for (unsigned i = 0; i < eh.e_shnum && i < ELF_MAX_SECTIONS && err == -ENOENT;
		     i++) {
			if (!shdr_at(fd, &eh, size, i, &sh))
				return -ENOEXEC;
			if (sh.sh_type == want)
				err = find_in(fd, &eh, &sh, size, vaddr, out);
		}
	}
	if (err == -ENOENT) /* stripped: the unwind tables know every function */
		err = elf_eh_func(fd, &eh, size, vaddr, out);
	else if (!err) /* (landing pads: only the unwind entry says) */
		out->has_lsda = elf_eh_func(fd, &eh, size, vaddr, &eh_fn) == 0 && eh_fn.has_lsda;
	if (err)
		return err;
	out->offset = vaddr - out->start; /* of vaddr in the function */
	return 0;
}
