/* SPDX-License-Identifier: GPL-2.0-or-later */
/* instance-follow.c: the PHCs of a boundary clock across NICs follow its SLAVE port's PHC. */
#pragma once

#include "daemon/model.h"

/*
 * instance-follow.c: with phc_follow = auto and ports on several PHCs, the other PHCs follow the
 * SLAVE port's. update: from the derive pass (cheap when nothing changed); true when the
 * followers changed. take_fault: a PHC found faulty since, whose ports the caller takes FAULTY.
 */
bool instance_follow_update(struct instance *i);
bool instance_follow_take_fault(struct instance *i, int *ret_phc, int *ret_error);
void instance_follow_free(struct instance *i);
/* Every follower locked (true without any): the instance may be Synchronized. */
bool instance_follow_locked(const struct instance *i);
/*
 * Its PHCs follow its own reference, CLOCK_REALTIME (time_source system) or the 1PPS on a PHC's
 * pin (time_source gnss, instance-pin.c), and every one is locked to it.
 */
bool instance_follow_on_reference(const struct instance *i);
/*
 * A paired edge of the pin on PHC phc_index: its offset from the second it marks, at the PHC's
 * time ts, for that PHC's follower (none yet: dropped, the next derive pass makes it).
 */
void instance_follow_pin_sample(struct instance *i, int phc_index, ns_t offset, ns_t ts);
/* The instance's followers (0 without any); fills up to max. */
size_t instance_followers(const struct instance *i, struct instance_follower_info *ret, size_t max);
