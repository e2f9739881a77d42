/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a supervised worker holds for its supervisor, and when it may go: each kind at most once a
 * tick (IPC_NEWS_TICK_NS), the first at once, what comes within the tick after it held and sent
 * as one when the tick is over (the latest state, the last values). Pure.
 */
#pragma once

#include <stdbool.h>

#include "ptp/types.h"

enum news_kind {
	NEWS_STATUS,   /* a STATUS on the socket: a state change, a new error, a push taken */
	NEWS_REQUESTS, /* the management SETs from the network: PRIORITY_REQUEST, GM_SETTINGS_... */
	_NEWS_KINDS,
};

/* Zero it to start: nothing held, nothing sent. */
struct news {
	bool held[_NEWS_KINDS];
	bool sent[_NEWS_KINDS];
	ns_t sent_at[_NEWS_KINDS];
};

/* Something of kind k changed: it goes out with the next news_take() that may send it. */
void news_hold(struct news *n, enum news_kind k);
/* May kind k go now (held, and a tick since the last went)? true: it is sent at now. */
bool news_take(struct news *n, enum news_kind k, ns_t now);
/* When the first held kind may go (0 for one never sent: at once); INT64_MAX when none is held. */
ns_t news_due(const struct news *n);
