// SPDX-License-Identifier: GPL-2.0-or-later
/* A worker's news, once a tick per kind (worker/news.h). */
#include <stdint.h>

#include "common/ipc.h"
#include "worker/news.h"

void news_hold(struct news *n, enum news_kind k)
{
	n->held[k] = true;
}

static ns_t may_go(const struct news *n, enum news_kind k)
{
	return n->sent[k] ? n->sent_at[k] + IPC_NEWS_TICK_NS : 0;
}

bool news_take(struct news *n, enum news_kind k, ns_t now)
{
	if (!n->held[k] || now < may_go(n, k)) {
		return false;
	}
	n->held[k] = false;
	n->sent[k] = true;
	n->sent_at[k] = now;
	return true;
}

ns_t news_due(const struct news *n)
{
	ns_t due = INT64_MAX;

	for (int k = 0; k < _NEWS_KINDS; k++) {
		if (n->held[k] && may_go(n, k) < due) {
			due = may_go(n, k);
		}
	}
	return due;
}
