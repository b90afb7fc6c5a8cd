/*
 * elf_int.h: what elf_func.c and elf_eh.c share: bounded reads of a file
 * that may be anything.
 */
#ifndef UTRACED_ELF_INT_H
#define UTRACED_ELF_INT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_SECTIONS 4096

/* Read len bytes at off of fd (size bytes long); false if they are not all there. */
bool elf_read_at(int fd, uint64_t off, void *buf, size_t len, uint64_t size);
/* Program header i of the file whose header is eh (a 32-bit file's widened). */
bool elf_phdr_at(int fd, const Elf64_Ehdr *eh, uint64_t size, unsigned i, Elf64_Phdr *ph);

/*
 * The function containing vaddr from the unwind tables (elf_eh.c): its
 * bounds and whether it has an LSDA. 0, -ENOENT, -ENOEXEC or -ENOMEM.
 * eh: as elf_func.c read it (a 32-bit file's widened, ELFCLASS32 kept).
 */
struct elf_func;
int elf_eh_func(int fd, const Elf64_Ehdr *eh, uint64_t size, uint64_t vaddr, struct elf_func *out);

#endif
