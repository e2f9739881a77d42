/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * derive.c: one derive pass per event-loop turn. In this order: holdover, PHC followers,
 * health, readiness; then one emission (manager_ops, the status file).
 */
#pragma once

#include "daemon/model.h"

/* The pass itself, now (start-up runs one before READY=1; tests run it directly). */
void manager_derive(struct manager *m);
/* Its deferred event source on m's loop (manager_new). */
int manager_derive_setup(struct manager *m);
