// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: ethtool TSINFO/TSCONFIG reply parsing, raw and behind a valid header. */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/tsinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR (NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct genlmsghdr)))

/*
 * Byte 0 picks the form: even = the input is the whole message (header fields fuzzed too), odd =
 * the rest is the attribute stream behind a correct header, to get past the length checks.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsconfig tc;
	struct tsinfo ti;
	uint8_t *buf;
	size_t len;

	if (size < 1 || size > 65536) {
		return 0;
	}
	if (data[0] & 1) {
		struct nlmsghdr nlh = { .nlmsg_len = (uint32_t) (HDR + size - 1) };

		len = HDR + size - 1;
		buf = calloc(1, len);
		if (!buf) {
			return 0;
		}
		memcpy(buf, &nlh, sizeof(nlh));
		memcpy(buf + HDR, data + 1, size - 1);
	} else {
		/* A heap copy of exactly the input, so ASan sees any read past its end. */
		len = size - 1;
		buf = malloc(len ? len : 1);
		if (!buf) {
			return 0;
		}
		memcpy(buf, data + 1, len);
	}
	if (tsinfo_parse((const struct nlmsghdr *) buf, len, &ti) == 0 &&
	    (ti.ifname[IF_NAMESIZE - 1] != '\0' || ti.phc_index < -1)) {
		abort(); /* names are always terminated; only an absent PHC is negative */
	}
	(void) tsconfig_parse((const struct nlmsghdr *) buf, len, &tc);
	free(buf);
	return 0;
}
