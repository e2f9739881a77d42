/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Status page: a sealed memfd; what the worker writes reads back once; torn and bad pages refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/status-page.h"

struct pages {
	int fd;
	struct status_page *writer;	  /* the worker's mapping */
	const struct status_page *reader; /* the supervisor's, read-only */
	struct status_page *reader_map;
};

static int setup(void **state)
{
	static struct pages p;

	assert_int_equal(status_page_create(&p.fd), 0);
	assert_int_equal(status_page_map(p.fd, true, &p.writer), 0);
	assert_int_equal(status_page_map(p.fd, false, &p.reader_map), 0);
	p.reader = p.reader_map;
	*state = &p;
	return 0;
}

static int teardown(void **state)
{
	struct pages *p = *state;

	status_page_unmap(p->writer);
	status_page_unmap(p->reader_map);
	close(p->fd);
	return 0;
}

static void status(struct ipc_msg *m, int64_t offset)
{
	memset(m, 0, sizeof(*m));
	m->type = IPC_STATUS;
	m->status.port_state = PORT_STATE_SLAVE;
	m->status.servo_state = SERVO_LOCKED;
	m->status.offset_ns = offset;
	m->status.mean_path_delay_ns = 280;
	m->status.freq_ppb = -12.5;
	m->status.rx[0] = 8;
	m->status.tx[1] = 1;
	m->status.last_error = -ENETDOWN;
	snprintf(m->status.last_error_text, sizeof(m->status.last_error_text), "link down");
}

/* A worker cannot shrink the page under the supervisor's mapping (a SIGBUS there), nor unseal. */
static void test_sealed(void **state)
{
	struct pages *p = *state;
	int seals = fcntl(p->fd, F_GET_SEALS);

	assert_true(seals >= 0);
	assert_int_equal(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal(ftruncate(p->fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(p->fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
}

/* Nothing written: nothing read. Each write reads back once, with every field; then unchanged. */
static void test_round_trip(void **state)
{
	struct pages *p = *state;
	struct ipc_msg m, back;
	uint32_t seq = 0;

	assert_int_equal(status_page_read(p->reader, &seq, &back), 0);
	status(&m, -1234);
	assert_int_equal(status_page_write(p->writer, &m), 0);
	assert_int_equal(status_page_read(p->reader, &seq, &back), 1);
	assert_int_equal(back.type, IPC_STATUS);
	assert_int_equal(back.status.port_state, PORT_STATE_SLAVE);
	assert_int_equal(back.status.offset_ns, -1234);
	assert_int_equal(back.status.mean_path_delay_ns, 280);
	assert_true(back.status.freq_ppb == -12.5);
	assert_int_equal(back.status.rx[0], 8);
	assert_int_equal(back.status.tx[1], 1);
	assert_int_equal(back.status.last_error, -ENETDOWN);
	assert_string_equal(back.status.last_error_text, "link down");
	assert_int_equal(status_page_read(p->reader, &seq, &back), 0);
	status(&m, 99);
	assert_int_equal(status_page_write(p->writer, &m), 0);
	assert_int_equal(status_page_read(p->reader, &seq, &back), 1);
	assert_int_equal(back.status.offset_ns, 99);
	/* Only STATUS goes on the page. */
	m.type = IPC_SHUTDOWN;
	assert_int_equal(status_page_write(p->writer, &m), -EINVAL);
}

/* A page being written (odd count) is not taken; once done it is. A worker cannot hold us. */
static void test_torn(void **state)
{
	struct pages *p = *state;
	struct ipc_msg m, back;
	uint32_t seq = 0;

	status(&m, 5);
	assert_int_equal(status_page_write(p->writer, &m), 0);
	p->writer->seq |= 1;
	assert_int_equal(status_page_read(p->reader, &seq, &back), -EAGAIN);
	assert_int_equal(seq, 0);
	p->writer->seq++;
	assert_int_equal(status_page_read(p->reader, &seq, &back), 1);
	assert_int_equal(back.status.offset_ns, 5);
}

/* Whatever a hostile worker puts there is -EBADMSG, never read past the page. */
static void test_hostile(void **state)
{
	struct pages *p = *state;
	struct ipc_msg m, back;
	uint32_t seq = 0;
	size_t len;

	status(&m, 5);
	assert_int_equal(status_page_write(p->writer, &m), 0);
	len = p->writer->len;

	p->writer->len = UINT32_MAX;
	p->writer->seq += 2;
	assert_int_equal(status_page_read(p->reader, &seq, &back), -EBADMSG);

	p->writer->len = (uint32_t) len - 1;
	p->writer->seq += 2;
	assert_int_equal(status_page_read(p->reader, &seq, &back), -EBADMSG);

	p->writer->len = (uint32_t) len;
	p->writer->data[3] ^= 0xff; /* the version */
	p->writer->seq += 2;
	assert_int_equal(status_page_read(p->reader, &seq, &back), -EBADMSG);

	/* A valid datagram of another type is not a STATUS. */
	m.type = IPC_HELLO;
	m.hello = (struct ipc_hello){ IPC_VERSION, 1, 2 };
	assert_int_equal(ipc_encode(&m, p->writer->data, sizeof(p->writer->data), &len), 0);
	p->writer->len = (uint32_t) len;
	p->writer->seq += 2;
	assert_int_equal(status_page_read(p->reader, &seq, &back), -EBADMSG);
	assert_int_equal(seq, 0);
}

/* A worker refuses a page too short to write (it would fault). */
static void test_short(void **state)
{
	struct status_page *page = NULL;
	int fd = memfd_create("short", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 16), 0);
	assert_int_equal(status_page_map(fd, true, &page), -EBADF);
	assert_null(page);
	close(fd);
	assert_null(status_page_unmap(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sealed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test(test_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
