#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor in Podman containers with no added capability, rootful and rootless: an image FROM scratch of the installed tree, contrib/container's entry and seccomp profile; the box's core cases, the limits (or proctord saying they are not enforced), proctor run as PID 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/ctr-lib.sh"
ctr_start_checks
ctr_need
[ -z "$CTR_WHY" ] || skip_all "$CTR_WHY"
for tool in useradd userdel runuser newuidmap; do
	command -v "$tool" >/dev/null || skip_all "no $tool"
done
chmod 0755 "$T"

# Podman's state, apart from the host's: its run root must be under 50
# characters, which $T may not be.
PST=$T/p
[ "${#PST}" -le 40 ] || PST=$(mktemp -d /run/proctor-ct.XXXXXX) || exit 1
# The throw-away user's state is below it (mktemp made it 0700).
chmod 0711 "$PST"
mkdir -p "$PST/0" "$PST/1/xdg"
made_subids=
user=pctr$$
# The end: the user's processes (rootless Podman's pause process), by
# their ids, then the user and Podman's state, then lib.sh's clean-up.
cleanup() {
	local p uid
	if uid=$(id -u "$user" 2>/dev/null); then
		for p in /proc/[0-9]*; do
			[ "$(stat -c %u "$p" 2>/dev/null)" = "$uid" ] && kill -9 "${p#/proc/}" 2>/dev/null
		done
		pause 0.2
		userdel "$user" || diag "userdel $user failed"
	fi
	rm -rf "$PST"
	[ -z "$made_subids" ] || rm -f /etc/subuid /etc/subgid
	# CT_KEEP=1: $T stays, to look at (by hand only).
	[ -n "${CT_KEEP:-}" ] || bb_cleanup
}
trap cleanup EXIT

# --- the image: the installed tree, FROM scratch ----------------------------
R="$T/rootfs"
if ! ctr_rootfs "$R" "$build" "$src" 2>"$T/rootfs.err"; then
	echo "Bail out! meson install into $R failed: $(<"$T/rootfs.err")"
	exit 1
fi
mkdir -p "$R/out" "$R/srv/box" "$R/progs"
ctr_add "$R" "$PROGS/hold" "$PROGS/forkbomb" "$PROGS/spin" "$PROGS/rtwitness"
cp "$PROGS/hold" "$PROGS/forkbomb" "$PROGS/spin" "$PROGS/rtwitness" "$R/progs/"
echo "a secret of the container" >"$R/srv/secret"
chmod 0777 "$R/srv/box"
# Podman that cannot run a container at all (a host without its
# configuration, a CI job in an unprivileged container) is a skip; one
# that runs this but not the cases below is a failure.
# (The runtime's defaults: not this script's profile and flags.)
if ! out=$(timeout 120 podman --storage-driver vfs --root "$PST/0/s" --runroot "$PST/0/r" \
	run --rm "${CTR_RUNTIME[@]}" --network=none --ulimit nofile=1024:4096 \
	--ulimit nproc=4096:8192 --rootfs "$R" true 2>&1); then
	skip_all "podman cannot run a container here: $(tail -n 1 <<<"$out")"
fi
# The profile: the runtime's default plus contrib/container's additions.
python3 "$src/contrib/container/proctor-seccomp.py" "$CTR_SECCOMP_DEFAULT" >"$PST/0.seccomp.json"
cp "$PST/0.seccomp.json" "$PST/1.seccomp.json"

ctr_cases "$R"

# --- the two containers -----------------------------------------------------
# podman_run WHO OUT ARGS...: podman run the image as WHO (root or the
# throw-away user), /out bound to OUT; no capability added, no --privileged.
podman_run() {
	local who=$1 out=$2
	shift 2
	if [ "$who" = root ]; then
		ctr_podman "$PST/0" -v "$out:/out" --rootfs "$R" "$@"
		timeout 120 "${CTR_CMD[@]}"
	else
		ctr_podman "$PST/1" -v "$out:/out" --rootfs "$T/rootfs.$who" "$@"
		(cd "$T" && timeout 120 runuser -u "$who" -- env HOME="$T/home" \
			XDG_RUNTIME_DIR="$PST/1/xdg" "${CTR_CMD[@]}")
	fi
}

# A throw-away user with subordinate ids, which rootless Podman maps into
# the container (nobody has none): useradd gives it a range of /etc/subuid.
if [ ! -e /etc/subuid ] && [ ! -e /etc/subgid ]; then
	made_subids=1
	touch /etc/subuid /etc/subgid
fi
if useradd --no-create-home --home-dir "$T/home" --shell /bin/false "$user" 2>"$T/useradd.err" &&
	grep -q "^$user:" /etc/subuid && grep -q "^$user:" /etc/subgid; then
	mkdir -p "$T/home"
	chown -R "$user:" "$T/home" "$PST/1"
	chmod 0700 "$PST/1/xdg"
	whos="root $user"
else
	skip "[rootless] every case" "no throw-away user with subordinate ids: $(head -n 1 "$T/useradd.err")"
	whos=root
fi

for who in $whos; do
	tag=rootful
	[ "$who" = root ] || tag=rootless
	out="$T/out.$tag"
	mkdir -p "$out"
	if [ "$who" != root ]; then
		# The image's files are its root's, as an image's are: the
		# user's, outside (proctord checks who owns its paths).
		cp -a "$R" "$T/rootfs.$who"
		chown -R "$who:" "$out" "$T/rootfs.$who"
	fi
	if ! podman_run "$who" "$out" /usr/local/bin/proctor-entry sh /cases.sh >"$T/$tag.log" 2>&1; then
		not_ok "[$tag] the container runs"
		diag "$(tail -n 20 "$T/$tag.log")"
		continue
	fi
	ok "[$tag] the container runs (no capability added, no --privileged)"

	ctr_judge "$tag" "$out"

	# proctor run as the container's entry point: PID 1 (the entry and the
	# shell exec it), its exit code the program's (it once took
	# getppid() == 1 for a dead parent: 125).
	podman_run "$who" "$out" /usr/local/bin/proctor-entry sh -c 'echo "pid $$"
		exec proctor run --json /out/pid1.json --wall-time 10s -- sh -c "exit 7"' >"$T/$tag.pid1" 2>&1
	rc=$?
	ctr_judge_pid1 "$tag" "$T/$tag.pid1" "$rc" "$out/pid1.json"
done

done_testing
