// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: parse -> build -> parse must give the same message, and build is stable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz-msg: %s (%ld, %ld)\n", what, a, b);
	abort();
}

/* Walk the TLVs the way a port would: typed views must not read outside the value. */
static void walk_tlvs(const struct msg *m)
{
	struct tlv_management_error_status es;
	struct tlv_follow_up_info fu;
	struct tlv_management mg;
	struct tlv_path_trace pt;
	struct tlv_org_ext oe;
	struct ClockIdentity c;
	struct tlv_iter it;
	struct tlv t;
	int r;

	tlv_iter_init(&it, m->tlv, m->tlv_len);
	TLV_FOREACH (r, &it, &t) {
		(void) tlv_management_parse(&t, &mg);
		(void) tlv_management_error_status_parse(&t, &es);
		(void) tlv_org_ext_parse(&t, &oe);
		(void) tlv_follow_up_info_parse(&t, &fu);
		if (tlv_path_trace_parse(&t, &pt) == 0 && pt.count > 0) {
			tlv_path_trace_get(&pt, pt.count - 1, &c);
		}
	}
	/* msg_parse validated the suffix: the walk must end cleanly. */
	if (r != 0) {
		die("TLV walk of a parsed message failed", r, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *out, *again;
	struct msg a, b;
	ssize_t n, n2;
	int r;

	if (msg_parse(data, size, &a) < 0) {
		return 0;
	}
	walk_tlvs(&a);
	/* Exactly messageLength bytes, so that ASan sees any write past what build claims. */
	out = malloc(a.hdr.messageLength);
	again = malloc(a.hdr.messageLength);
	if (!out || !again) {
		abort();
	}
	n = msg_build(&a, out, a.hdr.messageLength);
	if (n != a.hdr.messageLength) {
		die("build of a parsed message", (long) n, a.hdr.messageLength);
	}
	r = msg_parse(out, (size_t) n, &b);
	if (r < 0) {
		die("parse of a built message", r, 0);
	}
	if (!msg_equal(&a, &b)) {
		die("parse(build(parse(x))) != parse(x)", a.hdr.messageType, b.hdr.messageType);
	}
	/* The built bytes are canonical: building the reparsed message gives them again. */
	n2 = msg_build(&b, again, a.hdr.messageLength);
	if (n2 != n || memcmp(out, again, (size_t) n) != 0) {
		die("build(parse(build(x))) != build(x)", (long) n2, (long) n);
	}
	/* A buffer one byte short must be refused, never overrun. */
	if (n > 0 && msg_build(&a, again, (size_t) n - 1) >= 0) {
		die("build into a short buffer succeeded", (long) n, 0);
	}
	free(out);
	free(again);
	return 0;
}
