#!/bin/sh
# SPDX-License-Identifier: ISC
# Makes libproctor.a, whose only global symbols are proctor_*: the library's
# objects are linked into one (ld -r), in which everything else becomes local.
# The common code compiled in (the protocol's words, proto_*) then resolves
# inside that object and clashes with nothing of the program that links it,
# as the version script (libproctor.map) keeps it inside the shared library.
#
#   localize.sh LD OBJCOPY AR OUT.a IN.a
set -eu
ld=$1 objcopy=$2 ar=$3 out=$4 in=$5
obj="${out%.a}.o"
rm -f "$out" "$obj"
"$ld" -r --whole-archive "$in" -o "$obj"
"$objcopy" --wildcard --keep-global-symbol='proctor_*' "$obj"
"$ar" rcs "$out" "$obj"
rm -f "$obj"
