/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor as the D-Bus layer and phcd's main() see it: the state model and every call
 * they make. Inside daemon/ include the module's own header instead (manager-internal.h for the
 * core), so that the include graph stays small (tests/unit/test-include-graph.py).
 */
#pragma once

#include "daemon/instance-follow.h"
#include "daemon/instance.h"
#include "daemon/manager-core.h"
#include "daemon/manager-ports.h"
#include "daemon/manager-reload.h"
#include "daemon/manager-state.h"
#include "daemon/model.h"
