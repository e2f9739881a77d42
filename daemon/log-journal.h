/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The supervisor's journal sink for common/log: PHCD_INTERFACE= and PHCD_OBJECT_PATH= fields. */
#pragma once

/* Under journald (stderr is its stream), send every line as a native entry with its fields. */
void log_journal_setup(void);
