#!/bin/bash
# SPDX-License-Identifier: ISC
# --cpuset: the program and what it starts run only on the CPUs named, by a
# cpuset cgroup where there is one (root, v1 or v2), else by the affinity the
# child sets before execve (--cgroup none, or a user who cannot make
# cgroups); a bad list or a CPU proctord may not use is an error (exit 2).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# The CPUs this script may run on, as the kernel writes them.
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
# Every allowed CPU, one per line.
cpus_of() {
	local part
	tr ',' '\n' <<<"$1" | while IFS= read -r part; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done
}
last_cpu=$(cpus_of "$allowed" | tail -n 1)
n_cpus=$(cpus_of "$allowed" | wc -l)
# A CPU number this script may not use: one past the highest allowed.
outside=$((last_cpu + 1))

# The program reads its own Cpus_allowed_list (sh opens /proc/self/status
# itself) and starts a child that starts a grandchild (the "; true" keeps sh
# from exec'ing in place), which reads its own. With a second argument
# (the CPUs to ask for), it first widens its own affinity with taskset.
prog='
if [ -n "$1" ]; then taskset -a -p -c "$1" $$ >/dev/null 2>&1; fi
while IFS= read -r l; do
	case $l in Cpus_allowed_list:*) echo "program ${l#*:}" ;; esac
done </proc/self/status
sh -c "sh -c \"sed -n s/^Cpus_allowed_list:/grandchild/p /proc/self/status; true\"; true"
sed -n -e "s/^[0-9]*:cpuset:/cpuset-cgroup /p" -e "s/^0::/v2-cgroup /p" /proc/self/cgroup
'

# run_pinned NAME [proctord options...] -- [widen]: run the program, pinned,
# to its end; sets PROG_CPUS and GRAND_CPUS (blanks removed), PROG_CG (its
# v1 cpuset cgroup, where there is that hierarchy) and PROG_CG2 (its v2
# cgroup).
run_pinned() {
	local name=$1 out widen=
	shift
	out="$T/$name.out"
	local args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	widen=${1:-}
	ANS_HEAD= ANS_RAW=
	: >"$out"
	run_to_end "${args[@]}" --stdout "$out" -- sh -c "$prog" sh $widen
	PROG_CPUS=$(sed -n 's/^program[[:space:]]*//p' "$out")
	GRAND_CPUS=$(sed -n 's/^grandchild[[:space:]]*//p' "$out")
	PROG_CG=$(sed -n 's/^cpuset-cgroup //p' "$out")
	PROG_CG2=$(sed -n 's/^v2-cgroup //p' "$out")
	[ "$ANS_HEAD" = "exited 0" ] || { ans_diag; diag "output: $(<"$out")"; }
}

# --- --check's host audit -------------------------------------------------------

audit=$("$PROCTORD" --check --cgroup none 2>&1)
check_eq "--check with findings of the host audit still exits 0" 0 "$?"
check_re "--check prints the host audit's title" \
	"^host audit +what makes run times noisy on this host \(nothing was changed\)$" \
	"$(grep '^host audit' <<<"$audit")" || diag "$audit"
# What follows the title up to the next blank line: findings, or one line
# saying there are none.
findings=$(sed -n '/^host audit/,/^$/p' <<<"$audit" | sed '1d;/^$/d')
diag "$findings"
check_re "...then a line per finding (NAME what; what to do), or that there is none" \
	"^((swap|smt|busy|governor|turbo|boost|huge pages|thp defrag|khugepaged|aslr|core_pattern) +[^ ].*|( {15})nothing found .*)$" \
	"$(head -n 1 <<<"$findings")"
aslr=$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null)
if [ -n "$aslr" ] && [ "$aslr" != 0 ]; then
	check_re "...such as ASLR, on here (randomize_va_space = $aslr), as noise" \
		"^aslr +address space layout randomization is on \(kernel.randomize_va_space = $aslr\): it adds some noise" \
		"$(grep '^aslr ' <<<"$findings")"
else
	check_eq "...and no ASLR line here (randomize_va_space = ${aslr:-unreadable})" "" \
		"$(grep '^aslr ' <<<"$findings")"
fi
# Swap: a device in /proc/swaps, or SwapTotal above 0, is a finding, whether
# cgroups account it or not.
if [ "$(wc -l </proc/swaps 2>/dev/null || echo 0)" -gt 1 ] ||
	[ "$(sed -n 's/^SwapTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)" != 0 ]; then
	check_re "...and swap, on here, with the fix" \
		"^swap +on \(.*\)(,| and not) accounted to cgroups.*turn swap off \(swapoff -a\)" \
		"$(grep '^swap ' <<<"$findings")"
else
	check_eq "...and no swap line (no swap here)" "" "$(grep '^swap ' <<<"$findings")"
fi
# Transparent huge pages: the mode chosen is the one in brackets; any but
# never is a finding, a kernel without them (no file) none.
thp_mode() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/kernel/mm/transparent_hugepage/$1" 2>/dev/null
}
thp=$(thp_mode enabled)
if [ -n "$thp" ] && [ "$thp" != never ]; then
	check_re "...and transparent huge pages, on here (enabled = $thp), with the fix" \
		"^huge pages +transparent huge pages are on \(transparent_hugepage/enabled = $thp\): .*; echo never > /sys/kernel/mm/transparent_hugepage/enabled$" \
		"$(grep '^huge pages ' <<<"$findings")"
else
	check_eq "...and no huge pages line (enabled = ${thp:-no THP})" "" \
		"$(grep '^huge pages ' <<<"$findings")"
fi
thp=$(thp_mode defrag)
if [ -n "$thp" ] && [ "$thp" != never ]; then
	check_re "...and their defrag, not never here (defrag = $thp), with the fix" \
		"^thp defrag +huge pages are made by compacting memory \(transparent_hugepage/defrag = $thp\): .*; echo never > /sys/kernel/mm/transparent_hugepage/defrag$" \
		"$(grep '^thp defrag ' <<<"$findings")"
else
	check_eq "...and no thp defrag line (defrag = ${thp:-no THP})" "" \
		"$(grep '^thp defrag ' <<<"$findings")"
fi
thp=$(cat /sys/kernel/mm/transparent_hugepage/khugepaged/defrag 2>/dev/null)
if [ -n "$thp" ] && [ "$thp" != 0 ]; then
	check_re "...and khugepaged's defrag, on here (khugepaged/defrag = $thp), with the fix" \
		"^khugepaged +khugepaged reclaims and compacts memory .*\(transparent_hugepage/khugepaged/defrag = $thp\): .*; echo 0 > /sys/kernel/mm/transparent_hugepage/khugepaged/defrag$" \
		"$(grep '^khugepaged ' <<<"$findings")"
else
	check_eq "...and no khugepaged line (khugepaged/defrag = ${thp:-no THP})" "" \
		"$(grep '^khugepaged ' <<<"$findings")"
fi
if grep -q '^|' /proc/sys/kernel/core_pattern 2>/dev/null; then
	check_re "...and the core_pattern piped to a program" "^core_pattern +cores are piped" \
		"$(grep '^core_pattern ' <<<"$findings")"
else
	check_eq "...and no core_pattern line (cores are not piped here)" "" \
		"$(grep '^core_pattern ' <<<"$findings")"
fi

# A CPU busy with other work (a spinner pinned there) is named, with its share
# of the audit's 200 ms.
last=$(($(nproc) - 1))
if [ "$last" -lt 1 ]; then
	skip "--check names a chosen CPU that is busy" "one CPU"
else
	taskset -c "$last" "$PROGS/spin" >/dev/null 2>&1 &
	burner=$!
	pause 0.3
	busy=$("$PROCTORD" --check --cgroup none --cpuset "$last" 2>&1 | grep '^busy ')
	kill "$burner" 2>/dev/null
	wait "$burner" 2>/dev/null
	check_re "--check names a chosen CPU that is busy with other work, and its share" \
		"^busy +busy with other work over 200 ms: CPU $last: [0-9]+%;" "$busy"
fi

# --- bad values: one line, exit 2, nothing runs --------------------------------

for bad in 3-1 "" 0,,1 x 1024; do
	"$PROCTORD" --cpuset "$bad" -- touch "$T/ran" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	check_eq "--cpuset '$bad' is a usage error (exit 2)" 2 "$rc"
	check_re "...with one line naming the option" "^proctord: --cpuset $bad: " "$(<"$T/bad.err")" ||
		diag "stderr: $(<"$T/bad.err")"
done
check "...and the program never ran" gone "$T/ran"

"$PROCTORD" --cpuset "$outside" -- touch "$T/ran" >"$T/out.out" 2>"$T/out.err"
rc=$?
check_eq "a CPU proctord may not run on (--cpuset $outside, allowed $allowed) is exit 2" 2 "$rc"
check_eq "...with one line saying which CPU and which are allowed" \
	"proctord: cpuset = $outside (command line): CPU $outside is not among those proctord may run on ($allowed)" \
	"$(<"$T/out.err")"
check "...and the program never ran" gone "$T/ran"
"$PROCTORD" --check --cpuset "0-$outside" >/dev/null 2>"$T/out.err"
check_eq "--check with such a CPU in a range is exit 2 too" 2 "$?"
check_re "...and names the CPUs outside" "CPUs? ${outside}( |-)" "$(<"$T/out.err")"

printf 'cpuset = %s\n' "$outside" >"$T/bad.conf"
"$PROCTORD" --config "$T/bad.conf" -- true >/dev/null 2>"$T/conf.err"
check_eq "the same CPU from a configuration file is exit 2" 2 "$?"
check_re "...and the line says where it came from" "cpuset = $outside \\($T/bad.conf:1\\)" \
	"$(<"$T/conf.err")"

if [ "$n_cpus" -lt 2 ]; then
	skip "pinning to one CPU of several" "this script may run on one CPU only ($allowed)"
	done_testing
	exit 0
fi
set_=$last_cpu
diag "allowed CPUs: $allowed; pinning to $set_"

# --- the file key ---------------------------------------------------------------

printf '[pin]\ncpuset = %s\n' "$set_" >"$T/pin.conf"
# A long path in the "from" column puts "enforced by" on the next line.
check_re "--check shows the key from the file with what pins it" \
	"^cpuset +$set_ +$T/pin.conf:2 \\[pin\\] +(cgroup|affinity)" \
	"$("$PROCTORD" --check --config "$T/pin.conf" --profile pin 2>&1 | grep -A1 '^cpuset ' | tr '\n' ' ')"

# --- without cgroups: the affinity ----------------------------------------------

check_re "--cgroup none: --check says the affinity pins it" \
	"^cpuset +$set_ +command line +affinity \\(sched_setaffinity" \
	"$("$PROCTORD" --check --cgroup none --cpuset "$set_" 2>&1 | grep '^cpuset ')"
run_pinned none --cgroup none --cpuset "$set_"
check_eq "--cgroup none: the program's Cpus_allowed_list is the set" "$set_" "$PROG_CPUS"
check_eq "...and a grandchild's too" "$set_" "$GRAND_CPUS"
if command -v taskset >/dev/null; then
	run_pinned none-widen --cgroup none --cpuset "$set_" -- "$allowed"
	check_eq "...which the program may widen again (as documented)" "$allowed" "$PROG_CPUS"
	# With --seccomp the filter denies sched_setaffinity (EPERM, no kill):
	# the affinity holds, and the program ends normally.
	for sc in --seccomp --seccomp-errno; do
		if vg_on; then
			# valgrind 3.19 does not know seccomp(2) (isolation.sh).
			skip "...but not under $sc: sched_setaffinity fails" "under valgrind"
			skip "...and the program is not killed for trying" "under valgrind"
			continue
		fi
		run_pinned "none-$sc" --cgroup none --cpuset "$set_" "$sc" -- "$allowed"
		check_eq "...but not under $sc: sched_setaffinity fails, the set holds" "$set_" \
			"$PROG_CPUS"
		check_eq "...and the program is not killed for trying" "exited 0" "$ANS_HEAD"
	done
fi
run_pinned none-file --cgroup none --config "$T/pin.conf" --profile pin
check_eq "the key in a file pins the same way" "$set_" "$PROG_CPUS"

if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	chmod 0711 "$T" # for nobody: $TMPDIR, and valgrind's wrapper
	nobody_pd() {
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			env -u XDG_RUNTIME_DIR "$PROCTORD" "$@"
	}
	check_re "another user (no cgroup of its own): --check says the affinity" \
		"^cpuset +$set_ +command line +affinity" \
		"$(nobody_pd --check --cpuset "$set_" 2>&1 | grep '^cpuset ')"
	nobody_pd --dir "$TMPDIR/nobody" --cpuset "$set_" -- sh -c "$prog" >"$T/nobody.out" 2>"$T/nobody.err" &
	nb=$!
	wait_for "$T_OP" is_fifo "$TMPDIR/nobody/wait"
	pd_poll "$TMPDIR/nobody" 20 500 >/dev/null
	wait0 "$TMPDIR/nobody"
	pd_reap "$nb"
	check_eq "...and its program runs on the set" "$set_" \
		"$(sed -n 's/^program[[:space:]]*//p' "$T/nobody.out")" || diag "stderr: $(<"$T/nobody.err")"
else
	skip "another user's proctord" "not root, or no setpriv or no user nobody"
fi

# --- as root: the cpuset cgroup -------------------------------------------------

if [ "$(id -u)" -ne 0 ]; then
	skip "the cpuset cgroup" "needs root (cgroups are created below proctord's own)"
	done_testing
	exit 0
fi
# tests/vm (pure v2): each proctord alone in a cgroup of its own below the
# scope, as `systemd-run --scope -p Delegate=yes` starts it, so that it may
# hand the cpuset controller to the sandbox's cgroup.
pd_in_scope
check_out=$("$PROCTORD" --check --cpuset "$set_" 2>&1)
if ! grep -Eq "^cpuset .* cgroup[12] cpuset.cpus" <<<"$check_out"; then
	skip "the cpuset cgroup" "no cpuset hierarchy serves proctord here"
	diag "$check_out"
	done_testing
	exit 0
fi
diag "$(grep '^cpuset' <<<"$check_out")"
check_re "--check plans the sandbox's cgroup in the cpuset hierarchy" \
	"would create proctor-[0-9]+ in .*" "$check_out"
run_pinned cg --cpuset "$set_"
check_eq "cpuset cgroup: the program's Cpus_allowed_list is the set" "$set_" "$PROG_CPUS"
check_eq "...and a grandchild's too" "$set_" "$GRAND_CPUS"
if command -v taskset >/dev/null; then
	run_pinned cg-widen --cpuset "$set_" -- "$allowed"
	check_eq "...and the program cannot widen it (sched_setaffinity stays within the cgroup)" \
		"$set_" "$PROG_CPUS"
fi
cgdir=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup" && ("," $(i + 3) ",") ~ /,cpuset,/) print $5; break } }' /proc/self/mountinfo | head -n 1)
if grep -Eq "^cpuset .* cgroup1 cpuset.cpus" <<<"$check_out"; then
	check_re "...in a v1 cpuset cgroup of its own" "/proctor-[0-9.]+$" "$PROG_CG"
	check "...which is removed at the end" wait_for "$T_OP" gone "$cgdir$PROG_CG"
fi
v2dir=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -n 1)
if grep -Eq "^cpuset .* cgroup2 cpuset.cpus" <<<"$check_out"; then
	check_re "...in a v2 cgroup of its own" "/proctor-[0-9.]+$" "$PROG_CG2"
	check "...which is removed at the end" wait_for "$T_OP" gone "$v2dir$PROG_CG2"
fi

done_testing
