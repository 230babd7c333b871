#!/bin/bash
# SPDX-License-Identifier: ISC
# What a container adds to a start: bench's start phase (start to exec and
# proctor run -- /bin/true, boxed and not) in a rootful Podman container
# and on the host, in turns, each side's runs merged by table.py.
#
#   bash tests/bench/container.sh [BUILD [ROUNDS]]     (build, 3 rounds)
#
# As root, with Podman (tests/blackbox/ctr-lib.sh says what else). The
# image is tests/blackbox/container.sh's (meson install's tree FROM
# scratch, contrib/container's entry point and seccomp profile) with
# bench, its helpers, bash and coreutils' true. Both sides run at nice 19
# and without CAP_SYS_NICE: a container's root has none, so proctord can
# be neither SCHED_FIFO nor at nice -10 there, and the host's runs are
# made the same, so that the difference is the container's alone.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd) || exit 2
rounds=${2:-3}
case $rounds in '' | *[!0-9]*) echo "usage: container.sh [BUILD [ROUNDS]]" >&2; exit 2 ;; esac
# shellcheck source=tests/blackbox/ctr-lib.sh
. "$src/tests/blackbox/ctr-lib.sh"
ctr_need
if [ -n "$CTR_WHY" ]; then
	echo "container bench: $CTR_WHY" >&2
	exit 2
fi
B=$build/tests/bench
for f in bench floor stamp spin fifo-echo section-burn; do
	if [ ! -x "$B/$f" ]; then
		echo "container bench: no $B/$f (ninja -C $build first)" >&2
		exit 2
	fi
done
W=$(mktemp -d "${TMPDIR:-/tmp}/proctor-ctrbench.XXXXXX") || exit 1
# Podman's run root must be under 50 characters.
st=$W/p
[ "${#st}" -le 40 ] || st=$(mktemp -d /run/proctor-ctrbench.XXXXXX) || exit 1
trap 'rm -rf "$W" "$st" "$st.seccomp.json"' EXIT
chmod 0755 "$W"
mkdir -p "$st" "$W/out"

R=$W/rootfs
ctr_rootfs "$R" "$build" "$src" || exit 1
mkdir -p "$R/bench"
cp "$B/bench" "$B/floor" "$B/stamp" "$B/spin" "$B/fifo-echo" "$B/section-burn" "$R/bench/"
ctr_add "$R" "$B/bench" "$B/floor" "$B/stamp" "$(type -P bash)" "$(type -P true)"
cp "$(type -P bash)" "$R/usr/bin/bash"
rm -f "$R/usr/bin/true"
cp "$(type -P true)" "$R/usr/bin/true"
python3 "$src/contrib/container/proctor-seccomp.py" "$CTR_SECCOMP_DEFAULT" >"$st.seccomp.json"
ctr_podman "$st" -v "$W/out:/out" --rootfs "$R" proctor-entry /bench/bench --phases start \
	--proctord /usr/local/bin/proctord --proctor /usr/local/bin/proctor

# bench exits 1 when a figure could not be measured (n/a in its table):
# said on stderr, the other figures kept. No JSON at all ends the script.
for i in $(seq "$rounds"); do
	echo "round $i of $rounds: host" >&2
	setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice nice -n 19 "$B/bench" --phases start \
		--proctord "$build/src/proctord" --proctor "$build/src/proctor" \
		--json "$W/out/host.$i.json" >"$W/host.$i.txt" 2>&1 ||
		grep -h '^bench: ' "$W/host.$i.txt" >&2
	echo "round $i of $rounds: container" >&2
	nice -n 19 "${CTR_CMD[@]}" --json "/out/ctr.$i.json" >"$W/ctr.$i.txt" 2>&1 ||
		grep -h '^bench: \|^proctor-entry: ' "$W/ctr.$i.txt" >&2
	for side in host ctr; do
		if [ ! -s "$W/out/$side.$i.json" ]; then
			cat "$W/$side.$i.txt" >&2
			exit 1
		fi
	done
done
echo "## host (nice 19, no CAP_SYS_NICE)"
grep -m 1 '^machine:' "$W/host.1.txt"
grep -m 1 "^proctord's figures" "$W/host.1.txt"
python3 "$here/table.py" "$W"/out/host.*.json
echo
echo "## rootful Podman container (nice 19; proctor-entry, contrib/container's profile)"
grep -m 1 "^proctord's figures" "$W/ctr.1.txt"
python3 "$here/table.py" "$W"/out/ctr.*.json
