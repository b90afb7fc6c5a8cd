/*
 * fdio.h: a whole buffer written to a file descriptor (fdio.c).
 */
#ifndef UTRACED_FDIO_H
#define UTRACED_FDIO_H

#include <stddef.h>

/* Every byte of data, through short writes and EINTR: 0 or -errno (-EIO for a write of 0). */
int fd_write_all(int fd, const void *data, size_t len);

#endif
