// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: TLV iterator and typed views on any suffix; rebuilt TLVs read back equal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/tlv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, long a)
{
	fprintf(stderr, "fuzz-tlv: %s (%ld)\n", what, a);
	abort();
}

/* Rebuild one TLV through its typed builder and check that the typed view reads it back. */
static void rebuild(const struct tlv *t, uint8_t *buf, size_t size)
{
	struct tlv_management_error_status es, es2;
	struct tlv_follow_up_info fu, fu2;
	struct tlv_management mg, mg2;
	struct tlv_path_trace pt, pt2;
	struct tlv_c37_238 pw, pw2;
	struct tlv_builder b;
	struct tlv_iter it;
	struct tlv back;

	tlv_builder_init(&b, buf, size);
	if (tlv_follow_up_info_parse(t, &fu) == 0) {
		if (tlv_builder_add_follow_up_info(&b, &fu) < 0) {
			die("follow_up_info rebuild", 0);
		}
	} else if (tlv_management_parse(t, &mg) == 0) {
		if (tlv_builder_add_management(&b, mg.managementId, mg.data, mg.data_len) < 0) {
			die("management rebuild", (long) mg.data_len);
		}
	} else if (tlv_management_error_status_parse(t, &es) == 0) {
		if (tlv_builder_add_management_error_status(&b, &es) < 0) {
			die("management error status rebuild", es.displayData.lengthField);
		}
	} else if (tlv_path_trace_parse(t, &pt) == 0) {
		struct ClockIdentity ids[8192];

		for (size_t i = 0; i < pt.count; i++) {
			tlv_path_trace_get(&pt, i, &ids[i]);
		}
		if (tlv_builder_add_path_trace(&b, ids, pt.count) < 0) {
			die("path trace rebuild", (long) pt.count);
		}
	} else if (tlv_c37_238_parse(t, &pw) == 0) {
		if (tlv_builder_add_c37_238(&b, &pw) < 0) {
			die("C37.238 rebuild", (long) pw.subtype);
		}
	} else if (tlv_builder_add(&b, t->tlvType, t->value, t->lengthField) < 0) {
		die("raw rebuild", t->lengthField);
	}
	tlv_iter_init(&it, buf, tlv_builder_len(&b));
	/* Typed builders write the canonical form (trailing octets dropped): compare typed views.
	 */
	if (tlv_next(&it, &back) != 1 || back.tlvType != t->tlvType || back.lengthField % 2 != 0 ||
	    tlv_next(&it, &back) != 0) {
		die("rebuilt TLV does not iterate back", t->tlvType);
	}
	tlv_iter_init(&it, buf, tlv_builder_len(&b));
	(void) tlv_next(&it, &back);
	if (tlv_follow_up_info_parse(t, &fu) == 0) {
		if (tlv_follow_up_info_parse(&back, &fu2) != 0 ||
		    fu.cumulativeScaledRateOffset != fu2.cumulativeScaledRateOffset ||
		    fu.gmTimeBaseIndicator != fu2.gmTimeBaseIndicator ||
		    fu.lastGmPhaseChange.nanoseconds_lsb != fu2.lastGmPhaseChange.nanoseconds_lsb ||
		    fu.scaledLastGmFreqChange != fu2.scaledLastGmFreqChange) {
			die("follow_up_info differs", 0);
		}
	} else if (tlv_management_parse(t, &mg) == 0) {
		if (tlv_management_parse(&back, &mg2) != 0 || mg.managementId != mg2.managementId ||
		    mg2.data_len < mg.data_len || memcmp(mg.data, mg2.data, mg.data_len) != 0) {
			die("management differs", 0);
		}
	} else if (tlv_management_error_status_parse(t, &es) == 0) {
		if (tlv_management_error_status_parse(&back, &es2) != 0 ||
		    es.managementErrorId != es2.managementErrorId ||
		    es.managementId != es2.managementId ||
		    es.displayData.lengthField != es2.displayData.lengthField ||
		    (es.displayData.lengthField > 0 &&
		     memcmp(es.displayData.textField, es2.displayData.textField,
			    es.displayData.lengthField) != 0)) {
			die("management error status differs", 0);
		}
	} else if (tlv_path_trace_parse(t, &pt) == 0) {
		if (tlv_path_trace_parse(&back, &pt2) != 0 || pt.count != pt2.count ||
		    memcmp(pt.pathSequence, pt2.pathSequence, pt.count * 8) != 0) {
			die("path trace differs", 0);
		}
	} else if (tlv_c37_238_parse(t, &pw) == 0) {
		if (tlv_c37_238_parse(&back, &pw2) != 0 || memcmp(&pw, &pw2, sizeof(pw)) != 0) {
			die("C37.238 differs", 0);
		}
	} else if (back.lengthField != t->lengthField + t->lengthField % 2 ||
		   (t->lengthField > 0 && memcmp(back.value, t->value, t->lengthField) != 0)) {
		die("raw TLV differs", t->lengthField);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tlv_iter it;
	struct tlv t;
	uint8_t *buf;
	int r;

	/* One TLV is at most 4 + 65535 octets, plus a pad octet. */
	buf = malloc(TLV_HEADER_LEN + UINT16_MAX + 1);
	if (!buf) {
		abort();
	}
	tlv_iter_init(&it, data, size);
	TLV_FOREACH (r, &it, &t) {
		if (t.value < data || t.value + t.lengthField > data + size) {
			die("TLV value outside the input", t.lengthField);
		}
		rebuild(&t, buf, TLV_HEADER_LEN + UINT16_MAX + 1);
	}
	if ((r < 0) != (tlv_validate(data, size) < 0)) {
		die("tlv_validate disagrees with the iterator", r);
	}
	free(buf);
	return 0;
}
