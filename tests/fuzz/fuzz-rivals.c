// SPDX-License-Identifier: GPL-2.0-or-later
/* clock_rival_classify() on any comm and argv: /proc/PID/cmdline is another program's to write. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "daemon/clock-rivals.h"

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[4096 + 1];
	const char *args[ARGS_MAX];
	struct clock_rival r;
	size_t n = 0, len = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;

	/* As the scan sees it: NUL-separated words, the first one the comm too. */
	memcpy(buf, data, len);
	buf[len] = '\0';
	for (size_t k = 0; k < len && n < ARGS_MAX; k += strlen(buf + k) + 1) {
		args[n++] = buf + k;
	}
	(void) clock_rival_classify(n ? args[0] : "", args, n, &r);
	return 0;
}
