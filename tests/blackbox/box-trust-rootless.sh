#!/bin/bash
# SPDX-License-Identifier: ISC
# The box's trust suite (box-trust.sh) with proctord run as nobody: the box goes through a user namespace.
BOX_ROOTLESS=1 exec bash "$(dirname "$0")/box-trust.sh" "$@"
