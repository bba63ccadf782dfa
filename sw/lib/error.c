// SPDX-License-Identifier: MIT
/* Error reporting: generic texts per errno code and the detailed message of the last failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "beryl_priv.h"

static _Thread_local char last_msg[512];

int beryl_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *beryl_errmsg(void)
{
	return last_msg[0] ? last_msg : "no error";
}

const char *beryl_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case ENOENT:
		return "device not found (no simulator socket?)";
	case ECONNREFUSED:
		return "device refused the connection (simulator not running or busy)";
	case ENODEV:
		return "no Beryl device or no NIC interface there";
	case EPROTO:
		return "version mismatch between device and driver";
	case EBADMSG:
		return "register chain is corrupt (bad block header)";
	case ELOOP:
		return "register chain loops";
	case ERANGE:
		return "index out of range";
	case E2BIG:
		return "ring too large";
	case EMSGSIZE:
		return "frame too large";
	case EAGAIN:
		return "ring full, try again";
	case EBUSY:
		return "already started";
	case ENOTCONN:
		return "interface not started";
	case EIO:
		return "device access failed";
	case ECONNRESET:
		return "device connection lost";
	case ETIMEDOUT:
		return "timed out";
	case ENOMEM:
		return "out of memory (host or DMA)";
	case EINVAL:
		return "invalid argument";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
