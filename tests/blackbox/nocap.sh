#!/bin/bash
# SPDX-License-Identifier: ISC
# The box where proctord is uid 0 without root's powers, as in an unprivileged container: without CAP_SYS_ADMIN (a container's root), without any capability, as root of a user namespace, and under a runtime's seccomp profile (clone3 ENOSYS, sethostname EPERM).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/box-lib.sh"

for tool in capsh setpriv unshare nsenter; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP no $tool here"
		exit 0
	fi
done
if ! unshare --user --map-root-user true 2>/dev/null; then
	echo "1..0 # SKIP no user namespaces here"
	exit 0
fi

echo "the expected output: 42" >"$T/expected"
chmod 0644 "$T/expected"

# as NAME CMD...: a wrapper that runs proctord under CMD, as PROCTORD.
as() {
	local name=$1
	shift
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$*" "$PROCTORD_BIN" >"$T/pd-$name"
	chmod 0755 "$T/pd-$name"
	PROCTORD="$T/pd-$name"
}

# core WHO: the box's core checks, in one run: a host file outside the box
# is not there, /usr is read-only, /proc shows only the box's tree; and
# once it has ended, nothing of it is left: no process, DIR handed back.
no_tagged() { [ -z "$(tagged_pids)" ]; }
core() {
	local who=$1 owner
	bx_new
	owner=$(stat -c %u:%g "$BOX")
	bx_run "$T/tmp/o.$who" -- sh -c "$P open $T/expected
		if (: >/usr/x) 2>/dev/null; then echo usr: written; else echo usr: refused; fi
		cd /proc && echo [0-9]*"
	check_eq "[$who] the box runs: the program ended normally" "exited 0" "$ANS_STATUS" ||
		{ ans_diag; diag "$(cat "$PD_ERR" "$T/tmp/o.$who.err" 2>/dev/null)"; }
	check_eq "[$who] ...a host file outside the box cannot be read, /usr is read-only, /proc lists only its init and the program" \
		"open: ENOENT;usr: refused;1 2;" "$(tr '\n' ';' <"$T/tmp/o.$who" 2>/dev/null)"
	# proctord answers the terminating wait before its last clean-up: a
	# loaded machine (or a sanitizer build) may still see it for a moment.
	wait_for "$T_OP" no_tagged || :
	check_eq "[$who] ...nothing left behind: no process of it, DIR's owner back" \
		"$owner" "$(tagged_pids)$(stat -c %u:%g "$BOX")"
}

as nosysadmin capsh --drop=cap_sys_admin -- -c "'exec \"\$0\" \"\$@\"'"
core "uid 0 without CAP_SYS_ADMIN"

as userns unshare --user --map-root-user
core "uid 0 of a user namespace"

as setfcap setpriv --inh-caps=-all --bounding-set=-all,+setfcap
core "uid 0 with CAP_SETFCAP alone"

# A runtime's default profile: clone3 ENOSYS (a user namespace through
# unshare instead), sethostname EPERM (the box keeps the host's name),
# keyctl EPERM as in Docker's (no key ring of the caller's to leave behind:
# the filter denies the program every key ring call too).
as profile "$PROGS/denysys" clone3:ENOSYS sethostname:EPERM keyctl:EPERM -- \
	capsh --drop=cap_sys_admin -- -c "'exec \"\$0\" \"\$@\"'"
core "under a runtime's profile"
bx_run "$T/tmp/o.hostname" -- hostname
check_eq "[under a runtime's profile] a refused sethostname does not fail the box: it keeps the host's name" \
	"$(hostname)" "$(<"$T/tmp/o.hostname")" || ans_diag

# A container's /etc holds the runtime's binds (hosts, hostname,
# resolv.conf), locked with it in the container's user namespace: binding
# /etc alone would uncover what they cover (EINVAL). --ro-bind /etc takes
# them with it, each read-only too.
echo "locked-name" >"$T/hostname"
chmod 0644 "$T/hostname"
as locked unshare --mount --propagation private sh -c "'mount --bind $T/hostname /etc/hostname && exec unshare --user --map-root-user --mount \"\$0\" \"\$@\"'"
bx_new
bx_run "$T/tmp/o.locked" --ro-bind /etc -- sh -c 'cat /etc/hostname
	if (echo x >>/etc/hostname) 2>/dev/null; then echo written; else echo refused; fi'
check_eq "[uid 0 of a user namespace, /etc holding a locked bind] --ro-bind /etc binds it with its mounts, each read-only" \
	"locked-name;refused;" "$(tr '\n' ';' <"$T/tmp/o.locked" 2>&1)" || { ans_diag; diag "$(<"$PD_ERR")"; }

# No capability at all: no user namespace can map uid 0 (to itself takes
# CAP_SETFCAP, to nobody CAP_SETUID): refused, saying what to grant.
as nocaps setpriv --inh-caps=-all --bounding-set=-all
bx_new
bx_run "$T/tmp/o.nocaps" -- true
check_eq "[uid 0 without any capability] --box is refused at the start (exit 3)" 3 "$PD_RC"
check_re "...naming the capabilities to grant" "without CAP_SYS_ADMIN.*CAP_SETFCAP.*CAP_SETUID" "$(<"$PD_ERR")"

as nosysadmin capsh --drop=cap_sys_admin -- -c "'exec \"\$0\" \"\$@\"'"
pd_start --box "$BOX" --user nobody -- true
check_eq "[uid 0 without CAP_SYS_ADMIN] --user is refused (exit 3)" 3 "$PD_RC"
check_re "...saying why" "only root can run the program as another user \(proctord is uid 0 without CAP_SYS_ADMIN\)" "$(<"$PD_ERR")"

as userns unshare --user --map-root-user
pd_start --box "$BOX" --user nobody -- true
check_eq "[uid 0 of a user namespace mapping only 0] --user nobody is refused (exit 3)" 3 "$PD_RC"
check_re "...saying it is not mapped" "--user nobody: uid [0-9]+ is not mapped in proctord's user namespace" "$(<"$PD_ERR")"

# A container's user namespace maps 65536 ids (tests/vm/container.sh):
# root's ways there, --user nobody is nobody. A holder makes it, root
# writes its maps, proctord enters it as its uid 0.
cat >"$T/pd-wide" <<-EOF
#!/bin/bash
unshare --user -- sleep 600 &
h=\$!
while [ "\$(readlink /proc/\$h/ns/user)" = "\$(readlink /proc/self/ns/user)" ]; do sleep 0.01; done
echo "0 0 65536" >/proc/\$h/uid_map && echo "0 0 65536" >/proc/\$h/gid_map &&
	nsenter --user=/proc/\$h/ns/user --setuid 0 --setgid 0 -- "$PROCTORD_BIN" "\$@"
rc=\$?
kill \$h
exit \$rc
EOF
chmod 0755 "$T/pd-wide"
PROCTORD="$T/pd-wide"
bx_new
bx_run "$T/tmp/o.wide" --user nobody -- sh -c "$P ids; echo by-nobody >/box/n"
check_eq "[uid 0 of a user namespace mapping 65536 ids] --user nobody in a box runs as nobody" \
	"uid=$(id -u nobody) gid=$ng groups=0;" "$(tr '\n' ';' <"$T/tmp/o.wide" 2>&1)" || diag "$(<"$PD_ERR")"
check_eq "...and what it writes in DIR is nobody's" "$(id -u nobody)" "$(stat -c %u "$BOX/n" 2>&1)"

# --- what --check says there, and its readiness answer -------------------------
# check_as WRAPPER ARGS...: proctord --check ARGS under the wrapper; CHK_RC, CHK_OUT.
check_as() {
	CHK_OUT=$(timeout "$T_OP" "$T/pd-$1" --check "${@:2}" 2>&1)
	CHK_RC=$?
}
bx_new
check_as profile --strict --box "$BOX"
check_eq "[under a runtime's profile] --check --strict --box, the readiness check, exits 0: the box can be made" 0 "$CHK_RC" || diag "$CHK_OUT"
check_re "...it says proctord is uid 0 without CAP_SYS_ADMIN, and takes the user namespace" \
	$'\nidentity +proctord is uid 0 without CAP_SYS_ADMIN: the program runs in a user namespace of its own' "$CHK_OUT"
check_re "...and that a seccomp filter is on it, with the flag for a profile" \
	$'\nseccomp +a filter is on proctord \\(Seccomp: 2.*--security-opt seccomp=PROFILE' "$CHK_OUT"

# uid 0 of a user namespace under Docker's profile (clone3 ENOSYS), as
# proctor-entry makes it in a Docker container on a hybrid host: the PID
# namespace through unshare, from which setns cannot return (the user
# namespace does not own the caller's PID namespace). --check's probe once
# did that in --check itself, whose later forks all failed (ENOMEM).
as userprofile unshare --user --map-root-user "$PROGS/denysys" clone3:ENOSYS sethostname:EPERM keyctl:EPERM --
check_as userprofile --strict --box "$BOX"
check_eq "[uid 0 of a user namespace under a runtime's profile] --check --strict --box exits 0: the box can be made" 0 "$CHK_RC" ||
	diag "$(grep -E '^(cannot|pid namespace)' <<<"$CHK_OUT")"
check_re "...its trial made the box" $'\nbox tried +made and entered by --check' "$CHK_OUT"

check_as nocaps --strict --box "$BOX"
check_eq "[uid 0 without any capability] the readiness check exits 3: the box cannot be made" 3 "$CHK_RC"
check_re "...naming the capabilities the runtime can add" \
	$'\ncapabilities +the box.s uid 0 cannot be nobody here: --cap-add SETUID --cap-add SETGID --cap-add CHOWN' "$CHK_OUT"

# A runtime's /proc masks (a mount on /proc/timer_list), in user and cgroup
# namespaces of their own: the box cannot have its own /proc there.
printf '%s\n' '#!/bin/sh' \
	"exec unshare --mount --cgroup sh -c 'mount --bind /dev/null /proc/timer_list && exec unshare --user --map-root-user \"\$0\" \"\$@\"' \"$PROCTORD_BIN\" \"\$@\"" \
	>"$T/pd-masked"
chmod 0755 "$T/pd-masked"
check_as masked --strict --box "$BOX"
check_eq "[/proc masked, in a user namespace] the readiness check exits 3: the box's /proc is refused" 3 "$CHK_RC" || diag "$CHK_OUT"
check_re "...it names the mask and the flags that lift it" \
	$'\n/proc masks +1 mounts hide parts of /proc \\(/proc/timer_list\\).*unmask=/proc/\\*.*systempaths=unconfined' "$CHK_OUT"
check_re "...says it is in a user namespace" $'\nuser ns +a user namespace, not the host.s' "$CHK_OUT"
check_re "...and in a cgroup namespace of its own" $'\ncgroup ns +one of its own' "$CHK_OUT"

done_testing
