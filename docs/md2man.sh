#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# md2man.sh IN.md OUT NAME SECTION VERSION [LOWDOWN]: a man page from one of docs/*.N.md with lowdown.
# The Markdown opens with "# NAME(N) — what it is" and has "## SECTION" headings; a man page
# wants a NAME section ("name - what it is", which mandb and apropos read) and .SH for each
# section: so the title becomes the NAME section, and every heading goes up one level. HTML
# comments (the SPDX line) go. No date: the page is the same whenever it is built.
#
# Tables become one tagged paragraph per row, as ptp4l(8) lists its keys: a terminal of 80
# columns cannot hold four columns of prose (groff: "table wider than line"), while the Markdown
# keeps its tables for the web. The first cell is the tag; the table's longest column (by the
# length of its cells together: "meaning", "why") is the paragraph, after one line with the other
# cells, each named by its header ("default: 6; range: 0..7").
set -eu
in=$1 out=$2 name=$3 section=$4 version=$5 lowdown=${6:-lowdown}
title=$(sed -n 's/^# [^ ]* — //p' "$in" | head -n 1)
[ -n "$title" ] || { echo "md2man: $in: no '# $name($section) — ...' title line" >&2; exit 1; }

tables_to_paragraphs() {
	awk '
	# The cells of one "| a | b |" row; a "|" inside a code span or escaped as "\|" is text.
	function split_row(line, cells,    n, i, c, cell, code) {
		sub(/^[ \t]*\|/, "", line)
		sub(/\|[ \t]*$/, "", line)
		n = 0; cell = ""; code = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\\" && substr(line, i + 1, 1) == "|") {
				cell = cell "|"; i++
				continue
			}
			if (c == "`")
				code = !code
			if (c == "|" && !code) {
				cells[++n] = trim(cell); cell = ""
				continue
			}
			cell = cell c
		}
		cells[++n] = trim(cell)
		return n
	}
	function trim(s) {
		sub(/^[ \t]+/, "", s)
		sub(/[ \t]+$/, "", s)
		return s
	}
	function flush(    r, j, n, len, body, line, sep, cells, head) {
		if (rows < 2) {
			if (rows == 1)
				print row[1]
			rows = 0
			return
		}
		split_row(row[1], head)
		# row[2] is the |---| line.
		for (j = 2; j <= ncols; j++)
			len[j] = 0
		for (r = 3; r <= rows; r++) {
			n = split_row(row[r], cells)
			for (j = 2; j <= n; j++)
				len[j] += length(cells[j])
		}
		body = ncols
		for (j = 2; j <= ncols; j++)
			if (len[j] > len[body])
				body = j
		for (r = 3; r <= rows; r++) {
			n = split_row(row[r], cells)
			line = ""; sep = ""
			for (j = 2; j <= n; j++) {
				if (j == body)
					continue
				line = line sep "*" head[j] ":* " cells[j]
				sep = "; "
			}
			printf "%s\n: ", cells[1]
			if (line != "")
				printf "%s  \n  ", line
			printf "%s\n\n", cells[body]
		}
		rows = 0
	}
	/^[ \t]*\|/ {
		row[++rows] = $0
		if (rows == 1)
			ncols = split_row($0, tmp)
		if (rows == 2 && $0 !~ /^[ \t]*\|[ \t:|-]+$/) {
			# Not a table after all (no |---| line): the lines as they were.
			print row[1]; print row[2]; rows = 0
		}
		next
	}
	{ flush(); print }
	END { flush() }
	'
}

{
	printf '# NAME\n\n%s - %s\n\n' "$name" "$title"
	sed -e '/^<!--.*-->$/d' -e '/^# /d' -e 's/^##\(#*\) /#\1 /' "$in" | tables_to_paragraphs
} | "$lowdown" -s -Tman --out-no-smarty -M "title=$name" -M "section=$section" -M "source=phcd $version" \
	-o "$out"
