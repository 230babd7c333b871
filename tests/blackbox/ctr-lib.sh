# SPDX-License-Identifier: ISC
# shellcheck shell=bash
# shellcheck disable=SC2034 # CTR_* are for the scripts that source this
# The image of the container tests (tests/blackbox/container.sh, tests/bench/container.sh): meson install's tree FROM scratch, with what it loads, a shell and busybox's tools, and contrib/container's entry point. Sourced by bash.

# ctr_need: CTR_WHY is empty when this host has what the image and Podman
# need (root, podman, runc on a hybrid host, meson, dash, busybox,
# Podman's default seccomp profile), else it says what is missing. Sets
# CTR_RUNTIME (podman's --runtime, as an array).
ctr_need() {
	local tool
	CTR_WHY=''
	CTR_RUNTIME=()
	if [ "$(id -u)" != 0 ]; then
		CTR_WHY="needs root (to run Podman rootful and make a throw-away user)"
		return
	fi
	for tool in podman meson python3 dash busybox ldd; do
		command -v "$tool" >/dev/null || { CTR_WHY="no $tool"; return; }
	done
	# Debian 12's crun refuses hybrid hosts; runc runs on both.
	if command -v runc >/dev/null; then
		CTR_RUNTIME=(--runtime "$(command -v runc)")
	elif [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
		CTR_WHY="no runc, and crun refuses this host's hybrid cgroups"
		return
	fi
	CTR_SECCOMP_DEFAULT=/usr/share/containers/seccomp.json
	[ -f "$CTR_SECCOMP_DEFAULT" ] || CTR_WHY="no $CTR_SECCOMP_DEFAULT (Podman's default seccomp profile)"
}

# ctr_add ROOT FILE...: the shared libraries FILE loads, into ROOT/usr/lib
# (the loader's paths: /lib64 and /lib are links to it there).
ctr_add() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root/usr$lib" ] || cp -L "$lib" "$root/usr/lib/${lib##*/}"
		done
	done
}

# ctr_rootfs ROOT BUILD SRC: the image's tree in ROOT (made): BUILD's
# meson install, proctor-entry and proctord-cgroup, dash as sh (busybox's
# would run its own unshare and mount applets, not util-linux's, which
# the entry's cgroup mount needs), busybox's tools, util-linux's unshare,
# mount and umount, /etc/passwd and /etc/group. Returns 1, with the
# install's log on stderr, if meson install fails.
ctr_rootfs() {
	local root=$1 build=$2 src=$3 a tools
	if ! meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$root.log" 2>&1; then
		tail -n 5 "$root.log" >&2
		return 1
	fi
	mkdir -p "$root"/{usr/bin,usr/lib,proc,sys,dev,tmp,etc}
	ln -s usr/bin "$root/bin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib "$root/lib64"
	chmod 1777 "$root/tmp"
	tools=("$(command -v unshare)" "$(command -v mount)" "$(command -v umount)")
	ctr_add "$root" "$(command -v dash)" "$(command -v busybox)" "${tools[@]}" \
		"$root"/usr/local/bin/proctord "$root"/usr/local/bin/proctor
	cp "${tools[@]}" "$root/usr/bin/"
	cp "$(command -v dash)" "$root/usr/bin/sh"
	cp "$(command -v busybox)" "$root/usr/bin/busybox"
	for a in cat ls echo awk grep mkdir rm yes sleep id test true wc tr; do
		[ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
	done
	printf 'root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	install -m 0755 "$src/contrib/container/entry.sh" "$root/usr/local/bin/proctor-entry"
	install -m 0755 "$src/contrib/container/proctord-cgroup.sh" "$root/usr/local/bin/proctord-cgroup"
	ldconfig -r "$root" 2>/dev/null || :
}

# ctr_podman STATE ARGS...: CTR_CMD, the command line of a podman run with
# its state in STATE (its run root: under 50 characters), with what proctor
# needs and no capability added: the profile at STATE.seccomp.json, /proc
# unmasked, the cgroup namespace and mount. Podman's default ulimits fail
# where the host's hard limits are lower (root without CAP_SYS_RESOURCE):
# lower ones here.
ctr_podman() {
	local st=$1
	shift
	CTR_CMD=(podman --storage-driver vfs --root "$st/s" --runroot "$st/r" run --rm
		"${CTR_RUNTIME[@]}" --network=none --ulimit nofile=1024:4096 --ulimit nproc=4096:8192
		--security-opt unmask=/proc/* --security-opt seccomp="$st.seccomp.json"
		--cgroupns=private --security-opt unmask=/sys/fs/cgroup "$@")
}
