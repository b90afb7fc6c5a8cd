/*
 * gdb_dispatch_fuzz.c: libFuzzer harness for the gdb packet dispatcher and
 * every handler (src/gdb/), on the fake kernel of the engine unit tests:
 * a gdb session holding a fake process of three running threads
 * (fuzz_world.c, which also keeps the handlers from changing the machine).
 *
 * The input is a session, one item per line:
 *   a payload ("qSupported:...", "Z0,401010,1", "vCont;c"), framed here
 *       with a good checksum, so that the fuzzer spends its time in the
 *       handlers and not on checksums;
 *   \x01 KIND THREAD ARG: a kernel event (an int3 hit, a step, a signal, a
 *       thread's death...: fw_event()), which may bring a stop reply;
 *   \x02 BYTES: bytes sent as they are (acks, ^C, broken framing).
 * Packets of a recorded gdb session (fuzz/corpus/gdb_dispatch/) are such
 * lines, so every packet gdb sends reaches its handler, with the state
 * the packets before it made.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gdb_session *s = fw_start(NULL);
	const uint8_t *end = data + size;

	while (data < end && !s->closing) {
		const uint8_t *nl = memchr(data, '\n', (size_t)(end - data));
		size_t len = (size_t)((nl ? nl : end) - data);

		if (len && data[0] == 1)
			fw_event(data + 1, len - 1);
		else if (len && data[0] == 2)
			fw_input(s, data + 1, len - 1);
		else
			fw_packet(s, data, len);
		data += len + (nl != NULL);
	}
	fw_stop(s);
	return 0;
}
