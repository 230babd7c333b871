// SPDX-License-Identifier: ISC
// The two files a set-user-ID proctor-isolate trusts, fixed when it is built.
#include "isopaths.h"

const char iso_config_path[] = ISO_CONFIG_PATH;
const char iso_proctord_path[] = ISO_PROCTORD_PATH;
