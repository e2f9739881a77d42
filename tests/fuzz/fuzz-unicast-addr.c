// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: any bytes as the address of a [unicast_master_table] line (ptp/unicast-table.h),
 * in each family and by its shape, and 4, 6 or 16 bytes also as a frame's source (a MAC over L2,
 * an IPv4 or IPv6 address over UDP: unicast_addr_from_bytes()): what is taken is unicast, prints,
 * and parses back equal from its text and from its bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/unicast-table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct unicast_addr *a)
{
	char buf[UNICAST_ADDR_STRLEN];
	struct unicast_addr back;

	unicast_addr_to_string(a, buf);
	if (unicast_addr_from_string(a->family, buf, &back) != 0 || !unicast_addr_equal(a, &back)) {
		fprintf(stderr, "fuzz-unicast-addr: %s does not read back\n", buf);
		abort();
	}
	if (unicast_addr_from_bytes(a->bytes, a->len, &back) != 0 ||
	    !unicast_addr_equal(a, &back)) {
		fprintf(stderr, "fuzz-unicast-addr: %s does not read back from its bytes\n", buf);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unicast_master_table t = { .table_id = 1 };
	struct unicast_addr a;
	char s[128];

	if (size >= sizeof(s)) {
		return 0; /* a table line is at most 1023 characters; an address far less */
	}
	memcpy(s, data, size);
	s[size] = '\0';
	for (int f = UNICAST_FAMILY_L2; f <= UNICAST_FAMILY_IPV6; f++) {
		if (unicast_addr_from_string((enum unicast_family) f, s, &a) == 0) {
			round_trip(&a);
			if (unicast_table_add(&t, &a) < 0 && unicast_table_find(&t, &a) < 0) {
				abort();
			}
		}
	}
	if (unicast_addr_from_any_string(s, &a) == 0) {
		round_trip(&a);
	}
	if (unicast_addr_from_bytes(data, size, &a) == 0) {
		if (a.len != size || memcmp(a.bytes, data, size) != 0) {
			abort();
		}
		round_trip(&a);
	}
	return 0;
}
