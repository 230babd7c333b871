#!/bin/bash
# SPDX-License-Identifier: ISC
# meson install into a DESTDIR: the commands, man pages, sample configuration and Python client land where they are found.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR (e.g. PROCTOR=build/src/proctor)}"
PROCTOR=$(realpath "$PROCTOR")
src=$(realpath "$(dirname "$0")/../..")
# The build tree: proctor is linked in its src/ (src/meson.build).
build=$(realpath "$(dirname "$PROCTOR")/..")
# The interpreter meson installs the client for (contrib/python/meson.build).
py=${PROCTOR_PYTHON:-python3}
root="$T/root"

if ! command -v meson >/dev/null; then
	skip "meson install" "no meson on the PATH"
	done_testing
	exit
fi

# The build tree's directories, one a line: prefix, then bindir, mandir,
# datadir and sysconfdir, each under the prefix unless absolute (meson's rule).
mapfile -t dirs < <(meson introspect --buildoptions "$build" | "$py" -c '
import json, os, sys
opts = {o["name"]: o["value"] for o in json.load(sys.stdin)}
print(opts["prefix"])
for name in ("bindir", "mandir", "datadir", "sysconfdir"):
	print(os.path.join(opts["prefix"], opts[name]))')
prefix=${dirs[0]:-} bindir=${dirs[1]:-} mandir=${dirs[2]:-} datadir=${dirs[3]:-} sysconfdir=${dirs[4]:-}
if [ -z "$sysconfdir" ]; then
	echo "Bail out! cannot read the build options of $build (meson introspect)"
	exit 1
fi

out=$(meson install -C "$build" --no-rebuild --destdir "$root" 2>&1)
check "meson install --destdir succeeds" test $? -eq 0 || diag "$out"

# --- the commands -------------------------------------------------------------
want_version=$("$PROCTOR" --version)
for c in proctor proctord; do
	got=$(cd / && "$root$bindir/$c" --version 2>&1)
	check_eq "$c is installed in the bindir and runs from /" "${want_version/proctor/$c}" "$got"
done
# proctor run starts the proctord beside it: the installed pair works alone.
got=$(cd / && env -u PROCTORD PATH=/usr/bin:/bin "$root$bindir/proctor" run -- /bin/sh -c 'echo hi' 2>"$T/run.err")
check_eq "the installed proctor run starts the installed proctord" "hi" "$got" || diag "$(<"$T/run.err")"
got=$(cd / && "$root$bindir/proctor-isolate" --version 2>&1)
check_re "proctor-isolate is installed in the bindir and runs from /" "^proctor-isolate " "$got"
check "...but no isolate link, which would take isolate's own package's name" \
	gone "$root$bindir/isolate"

# --- the systemd unit: under the prefix, where an install without root can
# write and systemd looks (/usr/local/lib/systemd/system) --------------------
check "the systemd unit is installed in PREFIX/lib/systemd/system" \
	test -s "$root$prefix/lib/systemd/system/proctor@.service"
check_eq "nothing is installed outside the prefix $prefix" "" \
	"$(find "$root" \( -type f -o -type l \) ! -path "$root$prefix/*")"

# --- man pages ----------------------------------------------------------------
if [ -f "$build/contrib/man/proctor.1" ]; then
	for page in proctor.1 proctord.8 proctor.conf.5 proctor-protocol.7 proctor-isolate.1; do
		check "man page $page is installed in man${page##*.}" \
			test -s "$root$mandir/man${page##*.}/$page"
	done
else
	skip "man pages are installed" "this build has none (no scdoc, or -Dman=disabled)"
fi

# --- the sample configuration ---------------------------------------------------
check "the sample configuration is installed as DATADIR/doc/proctor/proctor.conf" \
	cmp -s "$src/contrib/proctor.conf" "$root$datadir/doc/proctor/proctor.conf"
check "no proctor.conf is installed in the sysconfdir (an edited one would be overwritten)" \
	gone "$root$sysconfdir/proctor.conf"

# --- the Python client ----------------------------------------------------------
mapfile -t found < <(find "$root" -name proctor.py)
check_eq "the Python client is installed once" 1 "${#found[@]}" || diag "${found[@]}"
pydir=$(dirname "${found[0]:-/nonexistent/x}")
pydir=${pydir#"$root"}
got=$(cd / && PYTHONPATH="$root$pydir" PYTHONDONTWRITEBYTECODE=1 "$py" -c 'import proctor; print(proctor.__file__)' 2>&1)
check_eq "PYTHONPATH=DIR $py -c 'import proctor' imports the installed client" "$root$pydir/proctor.py" "$got"
# Where the interpreter has a site directory under PREFIX/lib (Debian's
# python3 and /usr/local: /usr/local/lib/python3.X/dist-packages), the
# client must be in one of them: `import proctor` then needs no PYTHONPATH.
sites=$("$py" -c 'import site, sys
lib = sys.argv[1].rstrip("/") + "/lib/"
print("\n".join(d for d in site.getsitepackages() if d.startswith(lib)))' "$prefix")
if [ -z "$sites" ]; then
	skip "the Python client is in a site directory of $py" \
		"$py has no site directory under $prefix/lib: PYTHONPATH=$pydir finds it"
else
	# sys.path, not the site directories again: what `import` searches.
	check "the Python client is in a directory on $py's sys.path, which imports it without PYTHONPATH" \
		env -u PYTHONPATH "$py" -c 'import sys; sys.exit(sys.argv[1].rstrip("/") not in sys.path)' "$pydir" ||
		diag "installed in $pydir; $py's site directories under $prefix/lib: $sites"
fi

# --- pip install contrib/python --------------------------------------------------
pyproject_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/contrib/python/pyproject.toml")
check_eq "contrib/python/pyproject.toml has the project's version" "${want_version#proctor }" "$pyproject_version"
if ! "$py" -m pip --version >/dev/null 2>&1 || ! "$py" -c 'import setuptools, wheel' 2>/dev/null; then
	skip "pip install contrib/python" "$py has no pip, setuptools or wheel"
else
	# A copy: pip builds in the source directory, which stays as it is.
	cp -r "$src/contrib/python" "$T/pysrc"
	out=$("$py" -m pip install --quiet --no-cache-dir --no-build-isolation --no-index --no-deps \
		--target "$T/pip" "$T/pysrc" 2>&1)
	check "pip install --target DIR contrib/python succeeds" test $? -eq 0 || diag "$out"
	check "pip installs the client module" cmp -s "$src/contrib/python/proctor.py" "$T/pip/proctor.py"
	names=()
	for f in "$T/pip"/* "$T/pip"/.[!.]*; do
		[ -e "$f" ] && [ "${f##*/}" != __pycache__ ] && names+=("${f##*/}")
	done
	check_eq "pip installs the client and its metadata, nothing else" \
		"proctor-$pyproject_version.dist-info proctor.py" "${names[*]}"
	got=$(cd / && PYTHONPATH="$T/pip" PYTHONDONTWRITEBYTECODE=1 "$py" -c 'import proctor; print(proctor.__file__)' 2>&1)
	check_eq "the pip-installed client imports" "$T/pip/proctor.py" "$got"
fi

done_testing
