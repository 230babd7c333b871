#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor in a Docker container with no added capability, by contrib/container/README.md's docker run flags: an image imported from the installed tree FROM scratch, with proctor-entry as its entry point and the profile written from Docker's default; container.sh's cases, proctor run as PID 1. A dockerd of the script's own (its state in $T, no network set-up), stopped at the end.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/ctr-lib.sh"
ctr_start_checks
ctr_need_image
[ -z "$CTR_WHY" ] || skip_all "$CTR_WHY"
for tool in docker dockerd containerd runc; do
	command -v "$tool" >/dev/null || skip_all "no $tool (Debian: apt-get install docker.io)"
done
# The profile's base: Docker's own default, which Docker's packages do not
# ship (it is compiled in): DOCKER_SECCOMP_DEFAULT, or moby's source as
# Debian's golang-github-docker-docker-dev has it; else Podman's, of the
# same lineage (but clone3 allowed: nocap.sh has Docker's ENOSYS).
base=${DOCKER_SECCOMP_DEFAULT:-/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json}
[ -f "$base" ] || base=/usr/share/containers/seccomp.json
[ -f "$base" ] || skip_all "no Docker default seccomp profile (moby's profiles/seccomp/default.json of your Docker's release: set DOCKER_SECCOMP_DEFAULT), nor Podman's"
chmod 0755 "$T"

# dockerd's state: its sockets' paths must stay under 108 characters.
DK=$T/dk
[ "${#DK}" -le 50 ] || DK=$(mktemp -d /run/proctor-dk.XXXXXX) || exit 1
export DOCKER_HOST="unix://$DK/sock" DOCKER_CONFIG="$DK/cfg"
image=proctor-bb-$$
dockerd_pid=
# Docker's parent cgroup (cgroupfs: /docker in each hierarchy), removed at
# the end if this script's dockerd made it.
new_cgs=()
for c in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
	[ -e "$c/cgroup.procs" ] && [ ! -e "${c}docker" ] && new_cgs+=("${c}docker")
done
# The end: the daemon, by its pid (it stops the containerd it started),
# then what it left mounted under its state, then lib.sh's clean-up.
cleanup() {
	local i
	if [ -n "$dockerd_pid" ]; then
		kill -TERM "$dockerd_pid" 2>/dev/null
		for ((i = 0; i < 150; i++)); do
			kill -0 "$dockerd_pid" 2>/dev/null || break
			pause 0.1
		done
		kill -KILL "$dockerd_pid" 2>/dev/null
	fi
	awk -v d="$DK/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf "$DK"
	for c in "${new_cgs[@]}"; do
		[ ! -d "$c" ] || rmdir "$c" 2>/dev/null || diag "$c is left (in use)"
	done
	[ -n "${CT_KEEP:-}" ] || bb_cleanup
}
trap cleanup EXIT

# --- the daemon: its own state, sockets and containerd; no bridge, no
# iptables (the containers have --network=none) ------------------------------
mkdir -p "$DK/cfg"
dockerd --data-root "$DK/root" --exec-root "$DK/x" --pidfile "$DK/pid" -H "$DOCKER_HOST" \
	--bridge=none --iptables=false --ip6tables=false --ip-masq=false --storage-driver vfs \
	>"$T/dockerd.log" 2>&1 &
dockerd_pid=$!
up=
for ((i = 0; i < 300; i++)); do
	kill -0 "$dockerd_pid" 2>/dev/null || break
	if docker version >/dev/null 2>&1; then
		up=1
		break
	fi
	pause 0.1
done
[ -n "$up" ] || skip_all "dockerd does not start here: $(grep -v '^$' "$T/dockerd.log" | tail -n 1)"

# --- the image: the installed tree, FROM scratch, as the Containerfile's
# (proctor-entry its entry point) ---------------------------------------------
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
ctr_cases "$R"
if ! tar -C "$R" -c . | docker import --change 'ENTRYPOINT ["/usr/local/bin/proctor-entry"]' \
	--change 'CMD ["proctord", "--check"]' - "$image" >"$T/import.log" 2>&1; then
	echo "Bail out! docker import failed: $(tail -n 3 "$T/import.log")"
	exit 1
fi
# A Docker that cannot run a container at all (with its own defaults) is
# a skip; one that runs this but not the cases below is a failure.
if ! out=$(timeout 120 docker run --rm --network=none --entrypoint /usr/bin/true "$image" 2>&1); then
	skip_all "docker cannot run a container here: $(tail -n 1 <<<"$out")"
fi
python3 "$src/contrib/container/proctor-seccomp.py" "$base" >"$DK/proctor.json"
diag "$(docker version --format 'Docker {{.Server.Version}}, API {{.Server.APIVersion}}, client {{.Client.Version}}') (profile from $base)"

# dk_run OUT ARGS...: docker run the image with the README's flags, no
# capability added, no --privileged, /out bound to OUT.
dk_run() {
	local out=$1
	shift
	timeout 120 docker run --rm --network=none \
		--security-opt seccomp="$DK/proctor.json" \
		--security-opt apparmor=unconfined \
		--security-opt systempaths=unconfined \
		--cgroupns=private \
		--memory 2g --pids-limit 512 --cpus 2 \
		-v "$out:/out" "$image" "$@"
}

tag=docker
out="$T/out"
mkdir -p "$out"
if dk_run "$out" sh /cases.sh >"$T/$tag.log" 2>&1; then
	ok "[$tag] the container runs (no capability added, no --privileged)"
	ctr_judge "$tag" "$out"
else
	not_ok "[$tag] the container runs"
	diag "$(tail -n 20 "$T/$tag.log")"
fi

# proctor run as the container's PID 1: the entry point execs the shell,
# which execs proctor run.
dk_run "$out" sh -c 'echo "pid $$"
	exec proctor run --json /out/pid1.json --wall-time 10s -- sh -c "exit 7"' >"$T/$tag.pid1" 2>&1
rc=$?
ctr_judge_pid1 "$tag" "$T/$tag.pid1" "$rc" "$out/pid1.json"

# Docker's default profile alone (no --security-opt seccomp): the entry
# cannot make its namespaces, and the readiness check says what is
# missing, with the flag.
timeout 120 docker run --rm --network=none --security-opt systempaths=unconfined "$image" \
	proctord --check --strict --box /srv/box --memory-max 64MiB >"$T/noprofile.txt" 2>&1
rc=$?
check_eq "[docker, its default profile] --check --strict exits 3: memory_max not enforced, the box not made" \
	"3 1 1" "$rc $(grep -c '^memory_max .*NOT enforced' "$T/noprofile.txt") $(grep -c '^cannot be honoured: the box cannot be made here' "$T/noprofile.txt")" ||
	diag "$(<"$T/noprofile.txt")"
check_re "[docker, its default profile] ...naming the seccomp flag" 'security-opt seccomp=PROFILE' "$(<"$T/noprofile.txt")"

done_testing
