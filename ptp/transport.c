// SPDX-License-Identifier: GPL-2.0-or-later
/* Dispatch of the transport API to an implementation's ops table, and the enum names. */
#include <errno.h>
#include <string.h>

#include "ptp/transport.h"

int transport_open(struct transport *t, const struct transport_config *cfg)
{
	return t->ops->open(t, cfg);
}

int transport_adopt(struct transport *t, int fd, int general_fd, const struct transport_config *cfg)
{
	return t->ops->adopt(t, fd, general_fd, cfg);
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
