/*
 * elf_func.h: the function around an address, from an ELF file's symbols
 * or, stripped, its unwind tables (elf_func.c, elf_eh.c). Pure: reads the
 * file it is given, nothing else.
 */
#ifndef UTRACED_ELF_FUNC_H
#define UTRACED_ELF_FUNC_H

#include <stdbool.h>
#include <stdint.h>

struct elf_func {
	uint64_t start;	 /* its address in the file's numbering */
	uint64_t size;	 /* bytes */
	uint64_t offset; /* of the address asked about, from start */
	bool has_lsda;	 /* its unwind entry has an LSDA: C++ landing pads in it */
};

/*
 * The function (a sized FUNC symbol of .symtab, else .dynsym, else the
 * unwind entry of .eh_frame_hdr) containing the byte at file offset
 * file_off of the ELF file fd (64- or 32-bit); has_lsda from the unwind entry.
 * Returns 0, -ENOENT (none: not code), -ENOEXEC (not an ELF file we read,
 * or broken) or -ENOMEM.
 */
int elf_func_at(int fd, uint64_t file_off, struct elf_func *out);

#endif
