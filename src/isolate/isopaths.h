// SPDX-License-Identifier: ISC
// The two files a set-user-ID proctor-isolate trusts, fixed when it is built.
#ifndef PROCTOR_ISOPATHS_H
#define PROCTOR_ISOPATHS_H

/* The configuration file (the build's sysconfdir) and proctord (its
 * bindir): never $PROCTOR_ISOLATE_CONFIG, $PROCTORD nor the PATH when
 * set-user-ID. A separate object, so that the tests' copy
 * (proctor-isolate-setuid-test) differs in these two only. */
extern const char iso_config_path[];
extern const char iso_proctord_path[];

#endif
