/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to config_load(): reading phcd.conf and its drop-ins into the loader's layers. */
#pragma once

#include "common/config-loader.h"

/* Read src (phcd.conf and its drop-ins, or src->ptp4l_path alone) into l->c. <0: no memory. */
int config_read(struct loader *l, const struct config_source *src);
