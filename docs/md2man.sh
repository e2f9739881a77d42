#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# md2man.sh IN.md OUT NAME SECTION VERSION [LOWDOWN]: a man page from one of docs/*.N.md with lowdown.
# The Markdown opens with "# NAME(N) — what it is" and has "## SECTION" headings; a man page
# wants a NAME section ("name - what it is", which mandb and apropos read) and .SH for each
# section: so the title becomes the NAME section, and every heading goes up one level. HTML
# comments (the SPDX line) go. No date: the page is the same whenever it is built.
set -eu
in=$1 out=$2 name=$3 section=$4 version=$5 lowdown=${6:-lowdown}
title=$(sed -n 's/^# [^ ]* — //p' "$in" | head -n 1)
[ -n "$title" ] || { echo "md2man: $in: no '# $name($section) — ...' title line" >&2; exit 1; }
{
	printf '# NAME\n\n%s - %s\n\n' "$name" "$title"
	sed -e '/^<!--.*-->$/d' -e '/^# /d' -e 's/^##\(#*\) /#\1 /' "$in"
} | "$lowdown" -s -Tman -M "title=$name" -M "section=$section" -M "source=phcd $version" \
	-o "$out"
