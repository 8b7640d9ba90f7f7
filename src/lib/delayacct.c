// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "lib/delayacct.h"

enum delayacct_state delayacct_state(void)
{
	int fd = open(DELAYACCT_SYSCTL, O_RDONLY | O_CLOEXEC);
	char c = 0;

	if (fd < 0)
		return DELAYACCT_UNKNOWN;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1' ? DELAYACCT_ON : c == '0' ? DELAYACCT_OFF : DELAYACCT_UNKNOWN;
}

int delayacct_enable(void)
{
	int fd = open(DELAYACCT_SYSCTL, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "1\n", 2) != 2)
		err = -errno;
	close(fd);
	return err;
}
