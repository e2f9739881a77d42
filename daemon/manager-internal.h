/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The core of the supervisor (manager.c, manager-ports.c, instance.c, derive.c) and the code that
 * drives it (reload, management, supervisor.c, tests): every header of the core. The modules
 * around it include manager-state.h and their own header instead.
 */
#pragma once

#include "daemon/derive.h"
#include "daemon/instance-follow.h"
#include "daemon/instance.h"
#include "daemon/manager-core.h"
#include "daemon/manager-object.h"
#include "daemon/manager-ports.h"
#include "daemon/manager-state.h"
