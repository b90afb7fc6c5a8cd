/*
 * fuzz_world.h: a gdb session on the fake kernel, for the harnesses that
 * feed packets to the dispatcher (gdb_dispatch_fuzz.c, pty_session_fuzz.c).
 *
 * The world is the engine unit tests' (tests/lib/fake_kernel.c): one
 * process of three threads, all running, a second engine B beside the
 * session's. It is built anew for every input and torn down after it, so
 * an input always means the same thing. fuzz_world.c also stands guard
 * over the machine: the packets reach handlers that open, write and
 * unlink files, start programs and send signals, so those calls are
 * replaced here by ones that refuse anything that could change a file or
 * another process.
 */
#ifndef UTRACED_FUZZ_WORLD_H
#define UTRACED_FUZZ_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdb/gdb.h"
#include "util/procfs.h"

/*
 * Build the world and a session on it, holding its process through an
 * engine of its own. With peer, the session is a joined one
 * (gdb_session_init_joined(), as for a rendezvous socket or a pty of
 * --mount) for that client; without, the primary session of a gdb that
 * came over TCP.
 */
struct gdb_session *fw_start(const struct proc_caller *peer);
/* Bytes from the client, then what the event loop does after a read. */
void fw_input(struct gdb_session *s, const void *data, size_t len);
/* payload framed as "$payload#cs" with its escapes, then fw_input(). */
void fw_packet(struct gdb_session *s, const void *payload, size_t len);
/*
 * A kernel event for the fake process: ev[0] the kind, ev[1] the thread
 * (1..3), ev[2] an argument (address, signal, status). Events the kernel
 * could not send then (a thread that is not running) are ignored.
 */
void fw_event(const uint8_t *ev, size_t len);
/* Tear the session and the world down. */
void fw_stop(struct gdb_session *s);

#endif
