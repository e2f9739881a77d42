// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer: any bytes as the TLV suffix of a Signaling message. The unicast TLVs kept are valid
 * (rebuilt, they read back equal); then they drive a grantee and a grantor as if from peer 0
 * (ticks in between), whose actions stay within their bounds and name only valid peers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/unicast-neg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, long a)
{
	fprintf(stderr, "fuzz-unicast-tlv: %s (%ld)\n", what, a);
	abort();
}

static void rebuild(const struct unicast_tlv *u)
{
	uint8_t buf[16];
	struct tlv_builder b;
	struct tlv_iter it;
	struct tlv t;
	struct unicast_tlv back;

	tlv_builder_init(&b, buf, sizeof(buf));
	if (unicast_tlv_build(&b, u) < 0) {
		die("a parsed TLV does not build", u->tlvType);
	}
	tlv_iter_init(&it, buf, tlv_builder_len(&b));
	if (tlv_next(&it, &t) != 1 || unicast_tlv_parse(&t, &back) != 0 ||
	    back.tlvType != u->tlvType || back.messageType != u->messageType ||
	    back.logInterMessagePeriod != u->logInterMessagePeriod ||
	    back.durationField != u->durationField || back.renewalInvited != u->renewalInvited ||
	    back.maintainRequest != u->maintainRequest || back.maintainGrant != u->maintainGrant) {
		die("rebuilt TLV differs", u->tlvType);
	}
}

static void check(const struct unicast_actions *a, size_t peers, bool sender_ok)
{
	if (a->n > UNICAST_ACTIONS_MAX) {
		die("actions past the bound", (long) a->n);
	}
	for (size_t i = 0; i < a->n; i++) {
		if (a->a[i].peer >= peers && !(sender_ok && a->a[i].peer == UNICAST_PEER_SENDER)) {
			die("an action for no peer", a->a[i].peer);
		}
		if (unicast_mt_from_msg_type(a->a[i].messageType) < 0) {
			die("an action for a type not negotiated", a->a[i].messageType);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct unicast_grantor_config cfg = {
		.family = UNICAST_FAMILY_IPV4,
		.serve = { true, true, true, true },
		.min_log_period = { -7, -7, -7, -7 },
		.max_log_period = { 7, 7, 7, 7 },
		.min_duration = 10,
		.max_duration = 300,
	};
	struct unicast_addr peer = { .family = UNICAST_FAMILY_IPV4,
				     .len = 4,
				     .bytes = { 10, 0, 0, 1 } };
	struct unicast_grantor *gr = NULL;
	struct unicast_grantee ge;
	struct unicast_tlv_set set;
	struct unicast_actions a;
	struct msg m = { .hdr.messageType = MSG_SIGNALING, .tlv = data, .tlv_len = size };
	struct PortIdentity pid = { .portNumber = 1 };
	ns_t now = NS_PER_SEC;

	if (unicast_tlv_set_parse(&m, &set) < 0) {
		if (set.n != 0) {
			die("a broken suffix kept TLVs", (long) set.n);
		}
		return 0;
	}
	if (unicast_grantee_init(&ge, 1, 60, 0) < 0 || unicast_grantor_new(&cfg, 2, &gr) < 0) {
		abort();
	}
	memset(&a, 0, sizeof(a));
	(void) unicast_grantee_want(&ge, 0, MSG_SYNC, true, 0, now, &a);
	for (size_t i = 0; i < set.n; i++) {
		rebuild(&set.tlv[i]);
		/* Two senders at the one address: the grant's, and a stranger forging its TLVs. */
		pid.portNumber = (uint16_t) (1 + (set.tlv[i].durationField & 1));
		memset(&a, 0, sizeof(a));
		(void) unicast_grantee_receive(&ge, 0, &pid, &set.tlv[i], now, &a);
		check(&a, 1, false);
		memset(&a, 0, sizeof(a));
		(void) unicast_grantor_receive(gr, &peer, &pid, &set.tlv[i], now, &a);
		check(&a, gr->cap, true);
		/* Time moves by the TLV's own duration, so that expiries and renewals happen. */
		now += (ns_t) (set.tlv[i].durationField % 1000) * NS_PER_SEC / 2;
		for (int r = 1; r == 1;) {
			memset(&a, 0, sizeof(a));
			r = unicast_grantee_tick(&ge, now, &a);
			check(&a, 1, false);
		}
		for (int r = 1; r == 1;) {
			memset(&a, 0, sizeof(a));
			r = unicast_grantor_tick(gr, now, &a);
			check(&a, gr->cap, false);
		}
	}
	memset(&a, 0, sizeof(a));
	(void) unicast_grantee_shutdown(&ge, now, &a);
	check(&a, 1, false);
	unicast_grantor_free(gr);
	return 0;
}
