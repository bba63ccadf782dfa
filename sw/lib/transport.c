// SPDX-License-Identifier: MIT
/* Transport registry: open a transport by name. A VFIO transport adds one line here. */
#include <errno.h>
#include <string.h>

#include "beryl_priv.h"

int beryl_transport_open(const char *name, const char *path, struct beryl_transport **out)
{
	if (!name || !strcmp(name, "sim"))
		return beryl_sim_transport_open(path, out);
	return beryl_fail(-EINVAL, "unknown transport '%s' (known: sim)", name);
}
