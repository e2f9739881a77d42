#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# notSlave (G.8275's name for masterOnly) in a boundary clock: test-master-only.sh with the port
# configured by notSlave = 1. A better clock heard there never becomes the instance's parent.
set -euo pipefail
: "${SRC:?SRC must name the source directory}"
ROLE_KEY=notSlave exec "$SRC/tests/integration/test-master-only.sh"
