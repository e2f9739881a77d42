// SPDX-License-Identifier: GPL-2.0-or-later
/* Unicast peer addresses parsed strictly, and the unicast master table's lookups. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ptp/options.h"
#include "ptp/unicast-table.h"
#include "ptp/util.h"

static const char *const family_names[] = {
	[UNICAST_FAMILY_L2] = "L2",
	[UNICAST_FAMILY_IPV4] = "UDPv4",
	[UNICAST_FAMILY_IPV6] = "UDPv6",
};

const char *unicast_family_to_string(enum unicast_family f)
{
	return (unsigned) f < ARRAY_SIZE(family_names) ? family_names[f] : NULL;
}

int unicast_family_from_string(const char *s, enum unicast_family *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(family_names); i++) {
		if (strcmp(s, family_names[i]) == 0) {
			*ret = (enum unicast_family) i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Can a of family f be a unicast peer? (the checks of unicast_addr_from_string()) */
static bool unicast_ok(enum unicast_family f, const uint8_t *b)
{
	static const uint8_t zero[UNICAST_ADDR_MAX_LEN];

	switch (f) {
	case UNICAST_FAMILY_L2:
		return !(b[0] & 0x01) && memcmp(b, zero, OPTIONS_MAC_LEN) != 0;
	case UNICAST_FAMILY_IPV4:
		return memcmp(b, zero, 4) != 0 && (b[0] & 0xf0) != 0xe0 &&
		       !(b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255);
	case UNICAST_FAMILY_IPV6:
		return memcmp(b, zero, 16) != 0 && b[0] != 0xff;
	}
	return false;
}

int unicast_addr_from_string(enum unicast_family f, const char *s, struct unicast_addr *ret)
{
	struct unicast_addr a = { .family = f };
	int r;

	switch (f) {
	case UNICAST_FAMILY_L2:
		a.len = OPTIONS_MAC_LEN;
		r = options_mac_parse(s, a.bytes);
		break;
	case UNICAST_FAMILY_IPV4:
		a.len = 4;
		r = inet_pton(AF_INET, s, a.bytes) == 1 ? 0 : -EINVAL;
		break;
	case UNICAST_FAMILY_IPV6:
		a.len = 16;
		r = inet_pton(AF_INET6, s, a.bytes) == 1 ? 0 : -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (r < 0) {
		return -EINVAL;
	}
	if (!unicast_ok(f, a.bytes)) {
		return -ERANGE;
	}
	*ret = a;
	return 0;
}

int unicast_addr_from_any_string(const char *s, struct unicast_addr *ret)
{
	enum unicast_family f = UNICAST_FAMILY_IPV6;

	/* A MAC is 17 characters with a separator at 2; a dotted quad has dots and no colon. */
	if (strlen(s) == 17 && (s[2] == ':' || s[2] == '-')) {
		f = UNICAST_FAMILY_L2;
	} else if (strchr(s, '.') && !strchr(s, ':')) {
		f = UNICAST_FAMILY_IPV4;
	}
	return unicast_addr_from_string(f, s, ret);
}

int unicast_addr_from_bytes(const uint8_t *b, size_t len, struct unicast_addr *ret)
{
	struct unicast_addr a = { .len = (uint8_t) len };

	switch (len) {
	case OPTIONS_MAC_LEN:
		a.family = UNICAST_FAMILY_L2;
		break;
	case 4:
		a.family = UNICAST_FAMILY_IPV4;
		break;
	case 16:
		a.family = UNICAST_FAMILY_IPV6;
		break;
	default:
		return -EINVAL;
	}
	memcpy(a.bytes, b, len);
	if (!unicast_ok(a.family, a.bytes)) {
		return -ERANGE;
	}
	*ret = a;
	return 0;
}

const char *unicast_addr_to_string(const struct unicast_addr *a, char *buf)
{
	const uint8_t *b = a->bytes;

	switch (a->family) {
	case UNICAST_FAMILY_L2:
		snprintf(buf, UNICAST_ADDR_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1],
			 b[2], b[3], b[4], b[5]);
		return buf;
	case UNICAST_FAMILY_IPV4:
	case UNICAST_FAMILY_IPV6:
		if (inet_ntop(a->family == UNICAST_FAMILY_IPV4 ? AF_INET : AF_INET6, b, buf,
			      UNICAST_ADDR_STRLEN)) {
			return buf;
		}
		break;
	}
	snprintf(buf, UNICAST_ADDR_STRLEN, "?");
	return buf;
}

bool unicast_addr_equal(const struct unicast_addr *a, const struct unicast_addr *b)
{
	return a->family == b->family && a->len == b->len && a->len <= UNICAST_ADDR_MAX_LEN &&
	       memcmp(a->bytes, b->bytes, a->len) == 0;
}

int unicast_table_find(const struct unicast_master_table *t, const struct unicast_addr *addr)
{
	for (unsigned i = 0; i < t->n && i < UNICAST_TABLE_ADDRS_MAX; i++) {
		if (unicast_addr_equal(&t->addr[i], addr)) {
			return (int) i;
		}
	}
	return -ENOENT;
}

int unicast_table_add(struct unicast_master_table *t, const struct unicast_addr *addr)
{
	if (unicast_table_find(t, addr) >= 0) {
		return -EEXIST;
	}
	if (t->n >= UNICAST_TABLE_ADDRS_MAX) {
		return -ENOSPC;
	}
	t->addr[t->n++] = *addr;
	return 0;
}
