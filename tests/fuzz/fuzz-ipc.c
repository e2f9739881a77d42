/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer: any datagram decodes or is refused, and whatever decodes re-encodes to itself; the
 * same bytes on a worker's status page (the length word the input's, which may overrun the page)
 * read as a STATUS or are refused, never past the page; a decoded clock state is within the
 * limits table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ipc.h"
#include "common/status-page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A hostile page: the input as its data, its length as the length word. */
static void page(const uint8_t *data, size_t size)
{
	static struct status_page p;
	struct ipc_msg m;
	uint32_t seq = 0;
	int r;

	memset(&p, 0, sizeof(p));
	p.seq = 2;
	p.len = (uint32_t) size;
	memcpy(p.data, data, size < sizeof(p.data) ? size : sizeof(p.data));
	r = status_page_read(&p, &seq, &m);
	if (r != -EBADMSG && (r != 1 || m.type != IPC_STATUS || seq != 2)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[IPC_MAX_SIZE];
	struct ipc_msg m;
	size_t len;

	page(data, size);
	if (ipc_decode(data, size, &m) < 0) {
		return 0;
	}
	/* What decodes lies within the limits table the senders clamp to (common/ipc.h). */
	if ((m.type == IPC_CLOCK_STATE || m.type == IPC_SET_CLOCK_STATE) &&
	    (!ipc_limit_ok(IPC_LIMIT_RATE_PPB, m.clock_state.rate_ppb) ||
	     !ipc_limit_ok(IPC_LIMIT_GM_RATE_RATIO, m.clock_state.gm_rate_ratio))) {
		abort();
	}
	/* A valid message has exactly one encoding: a second one would be a codec asymmetry. */
	if (ipc_encode(&m, buf, sizeof(buf), &len) < 0 || len != size ||
	    memcmp(buf, data, size) != 0) {
		abort();
	}
	return 0;
}
