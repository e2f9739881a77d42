/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to config_load(): checks across sections and files, once all is read and resolved. */
#pragma once

#include "common/config-loader.h"

/* Keys that each are valid but together cannot work, and sections no instance could use. */
void config_cross_check(struct loader *l);
/* With a report: the keys of a ptp4l_config that phcd.conf overrides, one line each. */
void config_cross_note_overrides(struct loader *l);
