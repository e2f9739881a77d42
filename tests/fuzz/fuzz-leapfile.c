// SPDX-License-Identifier: GPL-2.0-or-later
/* leapfile_parse() and leapfile_lookup() on any text: a leapfile is the administrator's, or not. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/leapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct leap_table t;
	const char *why;
	unsigned int line;
	int16_t off;
	int leap;

	if (leapfile_parse((const char *) data, size, &t, &line, &why) < 0) {
		return 0;
	}
	/* A parsed table holds what the parser promises. */
	for (size_t k = 0; k < t.n; k++) {
		if (t.e[k].tai_utc < 10 || t.e[k].tai_utc > 1000 ||
		    (k && (t.e[k].utc_s <= t.e[k - 1].utc_s ||
			   (t.e[k].tai_utc != t.e[k - 1].tai_utc + 1 &&
			    t.e[k].tai_utc != t.e[k - 1].tai_utc - 1)))) {
			__builtin_trap();
		}
	}
	for (size_t k = 0; k < t.n; k++) {
		(void) leapfile_lookup(&t, t.e[k].utc_s - 1, &off, &leap);
		(void) leapfile_lookup(&t, t.e[k].utc_s, &off, &leap);
	}
	(void) leapfile_lookup(&t, INT64_MAX, &off, &leap);
	(void) leapfile_lookup(&t, INT64_MIN, &off, &leap);
	return 0;
}
