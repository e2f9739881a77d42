/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock-mode-step.c: an instance's clock-mode machine (ptp/clock-mode.c) fed and applied. */
#pragma once

#include "daemon/model.h"
#include "ptp/ds.h"

/* A new instance's machine: FREE_RUN, nothing announced differently yet. */
void instance_clock_mode_init(struct instance *i);
/*
 * The derive pass's step: feed the machine what the instance knows now (synchronized to its
 * parent, its offset RMS, its servo's frequency spread); on a transition log one line and mark
 * INSTANCE_CHANGED_CLOCK_MODE. Returns true when what the instance announces changed (the
 * caller pushes it to the workers); *ret_wakeup_usec: when time alone may move the mode on
 * (CLOCK_MONOTONIC usec; 0: nothing pending).
 */
bool instance_clock_mode_step(struct instance *i, uint64_t *ret_wakeup_usec);
/*
 * What the instance announces of itself (*gm holds the configured settings): the mode's class
 * and traceability once the machine has been locked, unless SetGrandmasterSettings overrides.
 */
void instance_clock_mode_apply(const struct instance *i, struct gm_settings *gm);
