#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The built units pass `systemd-analyze verify` (with every man: page of Documentation= found
# among the pages `meson install` installs), the services' exposure is at most 2.4, and each
# installed man page renders with man -l at 80 columns without a groff warning.
#
# verify checks that ExecStart= binaries exist, so each unit is verified as a copy whose
# ExecStart points at the binary in $BUILD (the installed path does not exist on a build host).
# A unit whose binary is not built yet makes the test SKIP, saying which.
set -euo pipefail
: "${BUILD:?set BUILD to the meson build directory}"
BUILD=$(realpath "$BUILD")
# (Man pages and the rest, installed into a scratch DESTDIR below.)
# 2.4 since the supervisor holds CAP_SETUID, CAP_SETGID and CAP_SETPCAP to start its workers as
# their own user with no capability (docs/security.md, "The worker sandbox"): +0.3, less 0.2 for
# SystemCallFilter=~@resources.
max_exposure=2.4

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
verify=()
missing=()

bindir=$(sed -n 's|^ExecStart=\(/.*\)/phcd$|\1|p' "$BUILD/units/phcd.service")
for unit in phcd.service phcd-wait-sync.service phcd-exporter.service; do
	src=$BUILD/units/$unit
	cp "$src" "$tmp/$unit"
	# ExecStart= and ExecReload=, after any of systemd's prefixes (ExecReload=!.../phcctl).
	for exe in $(sed -n "s#^Exec\(Start\|Reload\)=[-@:+!]*$bindir/\([^ ]*\).*#\2#p" "$src" | sort -u); do
		built=$(find "$BUILD" -maxdepth 3 -type f -name "$exe" -perm -u+x | head -n 1)
		if [ -z "$built" ]; then
			missing+=("$unit (needs $exe)")
			continue 2
		fi
		sed -i "s|^\(Exec[A-Za-z]*=[-@:+!]*\)$bindir/$exe|\1$built|" "$tmp/$unit"
	done
	verify+=("$unit")
done
# The exporter's socket unit is installed as it is (no ExecStart of its own).
: "${SRC:?set SRC to the source directory}"
cp "$SRC/units/phcd-exporter.socket" "$tmp/"
verify+=(phcd-exporter.socket)

# Install as a package would (the default prefix), into a scratch DESTDIR: the man pages go
# where man finds them once MANPATH names that tree.
if ! out=$(meson install -C "$BUILD" --no-rebuild --destdir "$tmp/dest" 2>&1); then
	echo "FAIL: meson install --destdir: $out"
	exit 1
fi
mandir=$(find "$tmp/dest" -type d -path '*/share/man' | head -n 1)
pages=$(cd "${mandir:-/nonexistent}" 2>/dev/null && find . -name '*.[0-9]' | sort | tr '\n' ' ')
if [ "$pages" != "./man1/phcctl.1 ./man5/phcd.conf.5 ./man8/phcd-exporter.8 ./man8/phcd-port-cli.8 ./man8/phcd-port.8 ./man8/phcd.8 " ]; then
	echo "FAIL: meson install: expected phcctl.1, phcd.conf.5, phcd-exporter.8, phcd-port-cli.8, phcd-port.8 and phcd.8 under share/man, got '$pages'"
	exit 1
fi
echo "ok: meson install puts $pages under ${mandir#"$tmp/dest"}"
completion=$(find "$tmp/dest" -path '*/share/bash-completion/completions/phcctl' | head -n 1)
if [ -z "$completion" ] || ! bash -n "$completion" || ! grep -q '^complete -F _phcctl phcctl$' "$completion"; then
	echo "FAIL: meson install: expected share/bash-completion/completions/phcctl (bash syntax, complete -F), got '${completion:-none}'"
	exit 1
fi
echo "ok: meson install puts phcctl's bash completion in ${completion#"$tmp/dest"}"
example=$(find "$tmp/dest" -path '*/share/doc/phcd/examples/phcd.conf.example' | head -n 1)
if [ -z "$example" ] || ! cmp -s "$example" "$SRC/docs/phcd.conf.example"; then
	echo "FAIL: meson install: expected share/doc/phcd/examples/phcd.conf.example (docs/phcd.conf.example), got '${example:-none}'"
	exit 1
fi
echo "ok: meson install puts the example configuration in ${example#"$tmp/dest"}"
# The D-Bus policy and the polkit action where Debian's dbus-daemon and polkitd read them, with
# the default prefix /usr/local too (they went to /usr/local/share/..., where nothing looks).
opts=$(meson introspect --buildoptions "$BUILD" | jq -r '[.[] | select(.name == "dbus_policy_dir" or .name == "polkit_actions_dir") | .value] | join(",")')
if [ "$opts" = "," ]; then
	for f in /usr/share/dbus-1/system.d/org.phcd1.conf /usr/share/polkit-1/actions/org.phcd1.policy; do
		if [ ! -f "$tmp/dest$f" ]; then
			echo "FAIL: meson install: expected $f, got: $(cd "$tmp/dest" && find . -name 'org.phcd1.*')"
			exit 1
		fi
	done
	echo "ok: meson install puts the D-Bus policy and the polkit action in /usr/share/dbus-1/system.d and /usr/share/polkit-1/actions (prefix $(meson introspect --buildoptions "$BUILD" | jq -r '.[] | select(.name == "prefix") | .value'))"
fi
# Each page read at 80 columns as man shows it, with every groff warning on, in a UTF-8 and in
# the C (ASCII) locale: a warning (a table wider than the line, a line that cannot be adjusted or
# broken, a character the terminal lacks) fails; so does a missing NAME. The path without its
# "./": man-db takes the directory above man5/ for a language, and "." would turn hyphenation off.
for page in $pages; do
	page=${page#./}
	name=$(basename "$page")
	# A page that is only a ".so" link shows the page it names (phcd-port-cli.8: phcd-port(8)).
	if so=$(sed -n '1s/^\.so //p' "$mandir/$page") && [ -n "$so" ]; then
		name=$(basename "$so")
	fi
	for loc in C.UTF-8 C; do
		# (from $mandir, where groff finds the page a ".so" names)
		if ! (cd "$mandir" && LC_ALL=$loc MANWIDTH=80 man --warnings=all -l "$mandir/$page") \
			>"$tmp/page.txt" 2>"$tmp/page.err" ||
			! grep -q "^NAME\$" "$tmp/page.txt" ||
			! grep -Eq "^ +${name%.*} - " "$tmp/page.txt"; then
			echo "FAIL: man -l $page ($loc): expected a NAME section '${name%.*} - ...', got:"
			head -n 12 "$tmp/page.txt" "$tmp/page.err"
			fail=1
		elif [ -s "$tmp/page.err" ]; then
			echo "FAIL: LC_ALL=$loc MANWIDTH=80 man --warnings=all -l $page: expected no groff" \
				"warning, got $(wc -l <"$tmp/page.err") lines:"
			head -n 5 "$tmp/page.err"
			fail=1
		fi
	done
done
[ "$fail" = 0 ] && echo "ok: man -l renders each of them at 80 columns (C.UTF-8 and C) with its NAME section, no groff warning"

if ! out=$(cd "$tmp" && MANPATH=$mandir systemd-analyze verify --man=yes "${verify[@]}" 2>&1) ||
	[ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify --man=yes: expected no output and rc 0, got:"
	echo "$out"
	fail=1
else
	echo "ok: systemd-analyze verify --man=yes ${verify[*]}: clean, every man: page found"
fi

for unit in phcd.service phcd-wait-sync.service phcd-exporter.service; do
	line=$(systemd-analyze security --offline=true "$tmp/$unit" 2>&1 | grep 'Overall exposure')
	exposure=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
	echo "$unit: $line"
	if [ -z "$exposure" ] ||
		! awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }'; then
		echo "FAIL: $unit exposure: expected <= $max_exposure, got '${exposure:-none}'"
		fail=1
	fi
done

# Conflicts= with the other time daemons only where phcd steers CLOCK_REALTIME: not in
# phcd.service (phcd and chrony side by side is the usual PTP setup), in the drop-in that phcd(8)
# says to add with system_clock_instance, installed; and phcd.service verifies with it.
if grep -q '^Conflicts=' "$BUILD/units/phcd.service"; then
	echo "FAIL: phcd.service conflicts with other time daemons although phcd does not steer CLOCK_REALTIME by default: $(grep '^Conflicts=' "$BUILD/units/phcd.service")"
	fail=1
fi
dropin=$(find "$tmp/dest" -path '*/share/phcd/system-clock.conf' | head -n 1)
if [ -z "$dropin" ] || ! grep -q '^Conflicts=systemd-timesyncd.service chrony.service ntpsec.service ntp.service openntpd.service$' "$dropin"; then
	echo "FAIL: meson install: expected share/phcd/system-clock.conf with Conflicts= of the time daemons, got '${dropin:-none}'"
	fail=1
else
	mkdir -p "$tmp/phcd.service.d"
	cp "$dropin" "$tmp/phcd.service.d/"
	if ! out=$(cd "$tmp" && MANPATH=$mandir systemd-analyze verify --man=yes phcd.service 2>&1) ||
		[ -n "$out" ]; then
		echo "FAIL: systemd-analyze verify phcd.service with the system-clock drop-in: $out"
		fail=1
	else
		echo "ok: phcd.service has no Conflicts=; the system-clock.conf drop-in has them and verifies"
	fi
fi
# The chrony.service drop-in for clock_servo refclock_sock (test-refclock runs its ExecStartPost).
if ! find "$tmp/dest" -path '*/share/phcd/chrony-refclock.conf' | grep -q .; then
	echo "FAIL: meson install: expected share/phcd/chrony-refclock.conf"
	fail=1
else
	echo "ok: share/phcd/chrony-refclock.conf installed"
fi

# timedatectl set-ntp false stops and disables every unit an ntp-units.d list names: phcd's list
# only beside the drop-in (phcd(8) says to link both where phcd steers CLOCK_REALTIME), never
# installed where timedated reads it.
ntp_lists=$(cd "$tmp/dest" && find . -path '*/ntp-units.d/*')
list=$(find "$tmp/dest" -path '*/share/phcd/phcd.list' | head -n 1)
if [ -n "$ntp_lists" ] || [ -z "$list" ] || [ "$(grep -v '^#' "$list")" != phcd.service ]; then
	echo "FAIL: meson install: expected no ntp-units.d list and share/phcd/phcd.list naming" \
		"phcd.service, got '${ntp_lists:-no ntp-units.d list}', '${list:-no share/phcd/phcd.list}'"
	fail=1
else
	echo "ok: no ntp-units.d list installed (set-ntp leaves phcd alone); ${list#"$tmp/dest"} for the system-clock case"
fi

# The activation file must name the unit alias that phcd.service declares.
alias=$(sed -n 's/^Alias=//p' "$BUILD/units/phcd.service")
want=$(sed -n 's/^SystemdService=//p' "$BUILD/units/org.phcd1.service")
if [ "$alias" != "$want" ]; then
	echo "FAIL: org.phcd1.service SystemdService=$want, expected phcd.service's Alias=$alias"
	fail=1
fi
[ "$fail" = 0 ] || exit 1
if [ ${#missing[@]} -gt 0 ]; then
	# A unit whose binary is not built yet cannot be verified: skip (77), never pass.
	echo "SKIP: not verified, binary not built under $BUILD: ${missing[*]}"
	exit 77
fi
