/*
 * elf_func.c: the function around an address of a mapped ELF file, from
 * its symbols (.symtab, else .dynsym), else from its unwind tables
 * (elf_eh.c), which also say whether it has C++ landing pads.
 *
 * The engine's patched breakpoints (src/engine/patch.c) replace several
 * instructions only after decoding the whole function around them, to
 * know that nothing jumps into the middle; this finds where the function
 * starts and ends. Every offset and count comes from a file that may be
 * anything: each is checked against the file's size before use.
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

/* The address (in the file's own numbering) of the byte at file offset off. */
static bool vaddr_of(int fd, const Elf64_Ehdr *eh, uint64_t size, uint64_t off, uint64_t *vaddr)
{
	Elf64_Phdr ph;

	for (unsigned i = 0; i < eh->e_phnum && i < ELF_MAX_SECTIONS; i++) {
		if (!elf_read_at(fd, eh->e_phoff + (uint64_t)i * sizeof(ph), &ph, sizeof(ph), size))
			return false;
		if (ph.p_type != PT_LOAD || off < ph.p_offset || off - ph.p_offset >= ph.p_filesz)
			continue;
		*vaddr = ph.p_vaddr + (off - ph.p_offset);
		return true;
	}
	return false;
}

/* The FUNC symbol of table sh containing vaddr; 0 and its size, or -ENOENT. */
static int find_in(int fd, const Elf64_Shdr *sh, uint64_t size, uint64_t vaddr,
		   struct elf_func *out)
{
	uint64_t n = sh->sh_entsize == sizeof(Elf64_Sym) ? sh->sh_size / sizeof(Elf64_Sym) : 0;
	Elf64_Sym *syms;
	int err = -ENOENT;

	if (n == 0 || n > MAX_SYMS || sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
		return -ENOENT;
	syms = malloc(n * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	if (!elf_read_at(fd, sh->sh_offset, syms, n * sizeof(*syms), size))
		goto out;
	for (uint64_t i = 0; i < n; i++) {
		const Elf64_Sym *s = &syms[i];

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
	if (!elf_read_at(fd, 0, &eh, sizeof(eh), size) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	if (!vaddr_of(fd, &eh, size, file_off, &vaddr))
		return -ENOENT;
	/* .symtab first (every function), .dynsym if stripped (exported ones) */
	for (unsigned want = SHT_SYMTAB; err == -ENOENT && want;
	     want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		for (unsigned i = 0; i < eh.e_shnum && i < ELF_MAX_SECTIONS && err == -ENOENT;
		     i++) {
			if (!elf_read_at(fd, eh.e_shoff + (uint64_t)i * sizeof(sh), &sh, sizeof(sh),
					 size))
				return -ENOEXEC;
			if (sh.sh_type == want)
				err = find_in(fd, &sh, size, vaddr, out);
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
