/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `phcd --list-interfaces [--json]`: every interface with its timestamping and PHC. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* Write the listing to f, as text like `ethtool -T` or as one JSON array. 0 or -errno. */
int list_interfaces(FILE *f, bool json);
