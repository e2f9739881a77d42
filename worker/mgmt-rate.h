/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How many Management messages from the network a worker takes: token buckets per source address.
 */
#pragma once

#include "common/token-bucket.h"

#include <stdbool.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * Each source address (a MAC over L2, an IP address over UDP: MGMT_RATE_ADDR_LEN octets,
 * zero-padded) gets MGMT_RATE_PER_SOURCE messages a second with bursts of
 * MGMT_RATE_PER_SOURCE_BURST, and all sources together MGMT_RATE_TOTAL a second with bursts of
 * MGMT_RATE_TOTAL_BURST (a sender that changes its address at every frame gets a new bucket each
 * time, but not more of the total). The table holds MGMT_RATE_SOURCES sources; a new one takes
 * the place of the one heard from least recently. pmc asks one question per command.
 */
#define MGMT_RATE_ADDR_LEN 16
#define MGMT_RATE_SOURCES 32
#define MGMT_RATE_PER_SOURCE 10
#define MGMT_RATE_PER_SOURCE_BURST 20
#define MGMT_RATE_TOTAL 100
#define MGMT_RATE_TOTAL_BURST 200

struct mgmt_rate_source {
	bool used;
	uint8_t addr[MGMT_RATE_ADDR_LEN];
	struct token_bucket bucket;
};

/* Zero it to start: every bucket starts full. */
struct mgmt_rate {
	bool started;
	struct token_bucket total;
	struct mgmt_rate_source src[MGMT_RATE_SOURCES];
};

/* May a message from addr, received at now (monotonic ns), be answered? Takes its tokens if so. */
bool mgmt_rate_allow(struct mgmt_rate *r, const uint8_t addr[MGMT_RATE_ADDR_LEN], ns_t now);
