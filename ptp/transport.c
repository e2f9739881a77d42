// SPDX-License-Identifier: GPL-2.0-or-later
/* Dispatch of the transport API to an implementation's ops table, and the enum names. */
#include <errno.h>
#include <string.h>

#include "ptp/transport.h"

int transport_open(struct transport *t, const struct transport_config *cfg)
{
	return t->ops->open(t, cfg);
}

int transport_adopt_fds(struct transport *t, const int *fds, size_t n,
			const struct transport_config *cfg)
{
	return t->ops->adopt(t, fds, n, cfg);
}

int transport_adopt(struct transport *t, int fd, int general_fd, const struct transport_config *cfg)
{
	int fds[] = { fd, general_fd };

	return t->ops->adopt(t, fds, general_fd < 0 ? 1 : 2, cfg);
}

int transport_new(enum options_transport kind, struct transport **ret)
{
	switch (kind) {
	case OPTIONS_TRANSPORT_L2:
		return transport_l2_new(ret);
	case OPTIONS_TRANSPORT_UDPV4:
		return transport_udp_new(false, ret);
	case OPTIONS_TRANSPORT_UDPV6:
		return transport_udp_new(true, ret);
	}
	return -EINVAL;
}

size_t transport_n_fds(enum options_transport kind)
{
	return kind == OPTIONS_TRANSPORT_L2 ? TRANSPORT_L2_FDS : TRANSPORT_UDP_FDS;
}

int transport_open_fds(enum options_transport kind, const struct transport_config *cfg,
		       int ret_fds[TRANSPORT_FDS_MAX], struct transport_ts_status *ret_status)
{
	int r;

	_Static_assert(TRANSPORT_L2_FDS <= TRANSPORT_FDS_MAX &&
			       TRANSPORT_UDP_FDS <= TRANSPORT_FDS_MAX,
		       "every transport's sockets fit");
	switch (kind) {
	case OPTIONS_TRANSPORT_L2:
		r = transport_l2_open_fd(cfg, ret_fds, ret_status);
		break;
	case OPTIONS_TRANSPORT_UDPV4:
	case OPTIONS_TRANSPORT_UDPV6:
		r = transport_udp_open_fd(kind == OPTIONS_TRANSPORT_UDPV6, cfg, ret_fds,
					  ret_status);
		break;
	default:
		return -EINVAL;
	}
	return r < 0 ? r : (int) transport_n_fds(kind);
}

struct transport *transport_free(struct transport *t)
{
	if (t) {
		t->ops->close(t);
		t->ops->free(t);
	}
	return NULL;
}

int transport_send(struct transport *t, const void *buf, size_t len,
		   const struct transport_dest *dest, bool event, ns_t *ret_tx_ts)
{
	return t->ops->send(t, buf, len, dest, event, ret_tx_ts);
}

int transport_recv(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret)
{
	return t->ops->recv(t, buf, len, ret);
}

int transport_recv_batch(struct transport *t, struct transport_frame *f, size_t n)
{
	if (n == 0) {
		return 0;
	}
	if (t->ops->recv_batch) {
		return t->ops->recv_batch(t, f, n);
	}
	f->len = t->ops->recv(t, f->buf, sizeof(f->buf), &f->info);
	/* One message only: the caller sees "fewer than asked" and waits for readiness again. */
	return f->len == -EAGAIN ? -EAGAIN : 1;
}

int transport_fd(struct transport *t)
{
	return t->ops->fd(t);
}

int transport_rx_fds(struct transport *t, int fds[TRANSPORT_FDS_MAX])
{
	if (t->ops->rx_fds) {
		return t->ops->rx_fds(t, fds);
	}
	fds[0] = t->ops->fd(t);
	return 1;
}

int transport_lazy_fd(struct transport *t)
{
	return t->ops->lazy_fd ? t->ops->lazy_fd(t) : -1;
}

int transport_get_mac(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN])
{
	return t->ops->get_mac(t, mac);
}

int transport_get_ts_status(struct transport *t, struct transport_ts_status *ret)
{
	return t->ops->get_ts_status(t, ret);
}

const char *transport_ts_mode_to_string(enum transport_ts_mode m)
{
	switch (m) {
	case TRANSPORT_TS_MODE_SOFTWARE:
		return "software";
	case TRANSPORT_TS_MODE_HARDWARE:
		return "hardware";
	}
	return "unknown";
}

int transport_add_peer(struct transport *t, const uint8_t *addr, size_t len, const int *fds,
		       size_t n)
{
	return t->ops->add_peer ? t->ops->add_peer(t, addr, len, fds, n) : -EOPNOTSUPP;
}

int transport_drop_peer(struct transport *t, uint8_t ret_addr[TRANSPORT_ADDR_LEN], size_t *ret_len)
{
	return t->ops->drop_peer ? t->ops->drop_peer(t, ret_addr, ret_len) : -ENOENT;
}

size_t transport_n_peers(struct transport *t)
{
	return t->ops->n_peers ? t->ops->n_peers(t) : 0;
}
