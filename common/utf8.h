/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The UTF-8 that sd-bus accepts: validation of one sequence, and names escaped to it. */
#pragma once

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1..4) that sd-bus accepts, or 0. */
size_t utf8_len(const unsigned char *s);
/*
 * A name as shown (config.files, messages, D-Bus): valid UTF-8, each byte that is not part of a
 * valid sequence, a control character or a backslash written as \xNN. malloc'ed; NULL: no memory.
 */
char *utf8_escape(const char *name);
