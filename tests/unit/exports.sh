#!/bin/sh
# SPDX-License-Identifier: ISC
# libproctor exports only proctor_*: every global symbol that the static and
# the shared library define is one of include/proctor.h (TAP).
#
#   exports.sh NM LIBPROCTOR.a LIBPROCTOR.so
set -u
nm=$1
shift
n=0
echo "1..$#"
for lib in "$@"; do
	n=$((n + 1))
	# An archive's global symbols; a shared object's dynamic ones.
	case $lib in
	*.a) table=-g ;;
	*) table=-D ;;
	esac
	syms=$("$nm" "$table" --defined-only "$lib" | awk 'NF == 3 { print $3 }')
	other=$(printf '%s\n' "$syms" | grep -v '^proctor_')
	name=${lib##*/}
	if [ -z "$syms" ]; then
		echo "not ok $n - $name defines proctor_* (no global symbol at all)"
	elif [ -n "$other" ]; then
		echo "not ok $n - $name exports only proctor_*"
		printf '%s\n' "$other" | sed 's/^/# also: /'
	else
		echo "ok $n - $name exports only proctor_* ($(printf '%s\n' "$syms" | wc -l) symbols)"
	fi
done
