// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: gpsd's JSON reports (what gpsd, or whatever holds its port, sends phcd). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/gpsd-json.h"
#include "daemon/gpsd-view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as the client splits it: lines at '\n', each parsed (from an exact-size copy, so that
 * a read past its end is ASan's to see), and each accepted report folded into a view whose report
 * is made at once and after it would have gone stale.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpsd_view v;
	struct time_source_report r;
	uint64_t now = 1000000;
	size_t start = 0;

	if (size > 4 * GPSD_JSON_LINE_MAX) {
		return 0;
	}
	gpsd_view_up(&v);
	for (size_t k = 0; k <= size; k++) {
		struct gpsd_msg m;
		char *line;

		if (k < size && data[k] != '\n') {
			continue;
		}
		line = malloc(k - start + 1);
		if (!line) {
			return 0;
		}
		memcpy(line, data + start, k - start);
		if (gpsd_json_parse(line, k - start, &m) == 0) {
			(void) gpsd_view_take(&v, &m, now);
			gpsd_view_report(&v, now, &r);
			now += 1000;
		}
		free(line);
		start = k + 1;
	}
	gpsd_view_report(&v, now, &r);
	(void) gpsd_view_deadline(&v, now);
	gpsd_view_report(&v, now + GPSD_VIEW_STALE_USEC + 1, &r);
	return 0;
}
