#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd-port's writable pages (issue 26, docs/performance.md "64 ports, Pss on a quiet machine"):
# each worker has its own copy of every page of its RELRO segment (relocated at start: the GOT,
# tables of pointers) and of .data and .bss that it writes. Each is to fit one page: a new table
# of pointers, or a static structure grown, that pushes either over costs 4 kB in every worker.
# usage: test-worker-pages.sh PHCD-PORT
set -eu
exe=$1
command -v readelf >/dev/null || { echo "FAIL: readelf missing (binutils): the pages cannot be read"; exit 1; }
# GNU_RELRO and the writable LOAD: VirtAddr and MemSiz (readelf -lW columns 3 and 6).
relro=$(readelf -lW "$exe" | awk '$1 == "GNU_RELRO" { print $3, $6 }')
rw=$(readelf -lW "$exe" | awk '$1 == "LOAD" && $7 ~ /W/ { print $3, $6 }')
[ -n "$relro" ] && [ -n "$rw" ] || { echo "$exe: no GNU_RELRO or writable LOAD segment"; exit 1; }
set -- $relro $rw
relro_start=$(($1)) relro_size=$(($2)) rw_end=$(($3 + $4))
relro_end=$((relro_start + relro_size))
data_pages=$(((rw_end - relro_end + 4095) / 4096))
echo "RELRO $relro_size bytes at $relro_start; .data and .bss $((rw_end - relro_end)) bytes after it"
fail=0
if [ "$relro_size" -gt 4096 ] || [ $((relro_start / 4096)) -ne $(((relro_end - 1) / 4096)) ]; then
	echo "FAIL: the RELRO segment spans more than one page (expected at most 4096 bytes)"
	fail=1
fi
if [ "$data_pages" -gt 1 ]; then
	echo "FAIL: .data and .bss span $data_pages pages (expected 1)"
	fail=1
fi
exit $fail
