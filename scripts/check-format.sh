#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fail when a C file differs from what the repository's .clang-format makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r f; do
	if ! clang-format --style=file "$f" | diff -u "$f" - >/dev/null; then
		echo "format: $f differs from clang-format (run: clang-format -i $f)"
		bad=1
	fi
done < <(git ls-files '*.c' '*.h')
exit $bad
