/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test helper: load a capture from tests/data/NAME.hex ($PHCD_TEST_DATA) into bytes. */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decode hex digits (whitespace ignored) into buf; return the byte count or -1. */
static inline int hex_decode(const char *s, uint8_t *buf, size_t size)
{
	size_t n = 0;
	int hi = -1;

	for (; *s; s++) {
		const char *digits = "0123456789abcdef";
		const char *d;
		int v;

		if (*s == ' ' || *s == '\n' || *s == '\t') {
			continue;
		}
		d = strchr(digits, *s | 0x20);
		if (!d || !*d) {
			return -1;
		}
		v = (int) (d - digits);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == size) {
			return -1;
		}
		buf[n++] = (uint8_t) (hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? (int) n : -1;
}

/* Read tests/data/<name>.hex; return the byte count, or -1 with a message on stderr. */
static inline int hex_load(const char *name, uint8_t *buf, size_t size)
{
	const char *dir = getenv("PHCD_TEST_DATA");
	char path[4096], text[8192];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.hex", dir ? dir : "tests/data", name);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "cannot open %s (set PHCD_TEST_DATA)\n", path);
		return -1;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	return hex_decode(text, buf, size);
}
