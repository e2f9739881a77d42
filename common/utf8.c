/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The UTF-8 that sd-bus accepts: validation of one sequence, and names escaped to it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

size_t utf8_len(const unsigned char *s)
{
	size_t n = *s < 0x80		 ? 1
		   : (*s & 0xE0) == 0xC0 ? 2
		   : (*s & 0xF0) == 0xE0 ? 3
		   : (*s & 0xF8) == 0xF0 ? 4
					 : 0;
	uint32_t c;

	if (n == 0 || (n == 2 && *s < 0xC2) || (n == 3 && *s == 0xE0 && s[1] < 0xA0) ||
	    (n == 3 && *s == 0xED && s[1] >= 0xA0) || (n == 4 && *s == 0xF0 && s[1] < 0x90) ||
	    (n == 4 && (*s > 0xF4 || (*s == 0xF4 && s[1] >= 0x90)))) {
		return 0;
	}
	c = n == 1 ? *s : (uint32_t) (*s & (0x7F >> n));
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xC0) != 0x80) {
			return 0;
		}
		c = c << 6 | (s[k] & 0x3F);
	}
	/* Noncharacters, which sd-bus refuses too. */
	if ((c >= 0xFDD0 && c <= 0xFDEF) || (n > 1 && (c & 0xFFFE) == 0xFFFE)) {
		return 0;
	}
	return n;
}

char *utf8_escape(const char *name)
{
	const unsigned char *in = (const unsigned char *) name;
	char *out = malloc(strlen(name) * 4 + 1), *o = out;

	if (!out) {
		return NULL;
	}
	for (size_t n; *in; in += n) {
		n = utf8_len(in);
		if (n == 0 || (n == 1 && (*in < 0x20 || *in == 0x7F || *in == '\\'))) {
			o += sprintf(o, "\\x%02x", *in);
			n = 1;
			continue;
		}
		memcpy(o, in, n);
		o += n;
	}
	*o = '\0';
	return out;
}
