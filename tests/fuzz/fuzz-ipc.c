/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer: any datagram decodes or is refused, and whatever decodes re-encodes to itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[IPC_MAX_SIZE];
	struct ipc_msg m;
	size_t len;

	if (ipc_decode(data, size, &m) < 0) {
		return 0;
	}
	/* A valid message has exactly one encoding: a second one would be a codec asymmetry. */
	if (ipc_encode(&m, buf, sizeof(buf), &len) < 0 || len != size ||
	    memcmp(buf, data, size) != 0) {
		abort();
	}
	return 0;
}
