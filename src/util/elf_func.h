/*
 * elf_func.h: the function around an address, from an ELF file's symbols
 * (elf_func.c). Pure: reads the file it is given, nothing else.
 */
#ifndef UTRACED_ELF_FUNC_H
#define UTRACED_ELF_FUNC_H

#include <stdint.h>

struct elf_func {
	uint64_t start;	 /* its address in the file's numbering */
	uint64_t size;	 /* bytes */
	uint64_t offset; /* of the address asked about, from start */
};

/*
 * The function (a sized FUNC symbol of .symtab, else .dynsym) containing
 * the byte at file offset file_off of the 64-bit ELF file fd. Returns 0,
 * -ENOENT (no such symbol: stripped, or not code), -ENOEXEC (not a
 * 64-bit ELF file, or broken) or -ENOMEM.
 */
int elf_func_at(int fd, uint64_t file_off, struct elf_func *out);

#endif
