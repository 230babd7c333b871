#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor.conf, --check, --strict and --report, through the real proctord.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

conf="$T/proctor.conf"
cat > "$conf" <<'CONF'
; global keys: the base of every profile
grace = 80ms
cpu_time = 5s

[c]
cpu_time = 1s
nofile = 64

[java]
inherit = c
wall_time = 4s
address_space = unlimited
CONF

# --check: values, where each came from, what enforces it; nothing runs.
out=$("$PROCTORD" --check --config "$conf" --profile java --wall-time 2s 2>&1)
rc=$?
check_eq "--check with a valid config exits 0" 0 "$rc"
check_re "--check shows a value inherited from [c] with its line" \
	"nofile +64 +$conf:7 \\[c\\][[:space:]]+RLIMIT_NOFILE" "$out"
check_re "--check shows the profile's own value over the inherited one" \
	"cpu_time +1\\.000s +$conf:6 \\[c\\][[:space:]]+deadline timer" "$out"
check_re "--check shows a command-line value over the file" \
	"wall_time +2\\.000s +command line +timer" "$out"
# A long path in the "from" column puts "enforced by" on the next line.
check_re "--check shows a global key" "grace +80ms +$conf:2[[:space:]]" "$out"
check_re "--check says where each figure comes from" $'\ncpu +(CPU clocks|cgroup[12] )' "$out"
out=$("$PROCTORD" --check --cgroup none 2>&1)
check_re "--check --cgroup none names the /proc fallback" $'\ncpu +CPU clocks' "$out"

# Errors: one line with FILE:LINE, exit 2, nothing runs.
config_error() {
	local desc=$1 text=$2 re=$3
	shift 3
	printf '%s' "$text" > "$T/bad.conf"
	out=$(timeout "$T_OP" "$PROCTORD" --config "$T/bad.conf" "$@" -- sh -c 'touch "$0"' "$T/ran" 2>&1)
	rc=$?
	check_eq "$desc: exit 2" 2 "$rc"
	check_re "...with the message" "$re" "$out"
	check "...and nothing ran" test ! -e "$T/ran"
}
config_error "an unknown key" $'cpu_time = 1s\nspeed = 3\n' \
	"^proctord: $T/bad.conf:2: unknown key \"speed\" \\(keys: cpu_time, "
config_error "a bad value" $'[c]\ncpu_time = 5parsecs\n' \
	"^proctord: $T/bad.conf:2: cpu_time = 5parsecs: unknown duration unit \\(use us, ms, s, m or h\\)\$" \
	--profile c
config_error "an inherit cycle" $'[a]\ninherit = b\n[b]\ninherit = a\n' \
	"^proctord: $T/bad.conf:[24]: inherit cycle: a -> b -> a\$" --profile a
config_error "a missing profile" $'[c]\nnofile = 1\n' \
	"^proctord: $T/bad.conf: no profile \\[rust\\] \\(profiles: c\\)\$" --profile rust
config_error "memory_high above memory_max" $'memory_max = 1G\nmemory_high = 2G\n' \
	"memory_high = 2GiB \\($T/bad.conf:2\\) is above memory_max = 1GiB \\($T/bad.conf:1\\)"
mkdir -p "$T/cbox"
config_error "a bind whose destination is not absolute" $'ro_bind = /usr/bin:ubin\n' \
	"^proctord: $T/bad.conf:1: ro_bind = /usr/bin:ubin: the destination after ':' must be an absolute path inside the box, such as /data\$" \
	--box "$T/cbox"
out=$("$PROCTORD" --config "$T/missing.conf" -- true 2>&1)
check_eq "a missing config file is a usage error" "2:proctord: $T/missing.conf: No such file or directory" "$?:$out"
out=$("$PROCTORD" --profile c -- true 2>&1)
check_eq "--profile without --config is a usage error" 2 "$?"

# Limits that cannot be honoured (here: cgroups turned off): a warning, or an
# error with --strict.
out=$("$PROCTORD" --check --cgroup none --memory-max 256MiB 2>&1)
check_eq "--check exits 3 when a limit asked for cannot be honoured" 3 "$?"
check_re "...and says which, and why" \
	"memory_max cannot be honoured: cgroups are turned off \\(cgroup = none\\)" "$out"
sb="$T/warn"
pd_start --dir "$sb" --cgroup none --pids 64 -- sleep 100
check_re "without --strict, proctord starts and warns" "^proctord: warning: pids cannot be honoured" \
	"$(<"$PD_ERR")"
wait0 "$sb"
out=$("$PROCTORD" --strict --cgroup none --cpus 1.5 -- sh -c 'touch "$0"' "$T/ran" 2>&1)
check_eq "with --strict, it is an error: exit 3" 3 "$?"
check "...and nothing ran" test ! -e "$T/ran"

# --report: a JSON document, written atomically at the end, before the
# answer to the terminating wait: no waiting for it once that is read.
report() {
	local name=$1
	shift
	pd_start --dir "$T/rep.$name" --report "$T/$name.json" "$@"
	pd_poll "$T/rep.$name" 5
	wait0 "$T/rep.$name"
}
get() { jsonget "$T/$1.json" "$2" 2>&1; }

report exit -- sh -c 'exit 3'
check "the report is in place once the final answer has been read" test -s "$T/exit.json"
check_eq "report of an exit: head" "exited 3" "$(get exit status.head)"
check_eq "...exit code" 3 "$(get exit status.exit_code)"
check_eq "...no signal" null "$(get exit status.signal)"
check_eq "...the CPU figure is the one the last answer gave" "$ANS_CPU" "$(get exit cpu_us)"

report segv -- "$PROGS/crash" segv
check_eq "report of a signal: head" "signaled SIGSEGV" "$(get segv status.head)"
check_eq "...signal" SIGSEGV "$(get segv status.signal)"
check_eq "...exit code null" null "$(get segv status.exit_code)"

report cpu --cpu-time 200ms --config "$conf" --profile c -- "$PROGS/spin" 1
native rlimits check_eq "report of a limit: head" "killed cpu-time" "$(get cpu status.head)"
native rlimits check_eq "...reason" cpu-time "$(get cpu status.reason)"
check_eq "...the limit in force (command line over the file)" 200000 "$(get cpu limits.cpu_time_us)"
check_eq "...a limit from the profile" 64 "$(get cpu limits.nofile)"
check_eq "...an unset limit is null" null "$(get cpu limits.stack_bytes)"
cpu=$(get cpu cpu_us) user=$(get cpu user_us) sys=$(get cpu sys_us)
# The report's figure, not the kill's punctuality: limits.sh measures that
# (native timing). Here a 15 ms margin failed once in 7 CI runs beside two
# CPU hogs (249 ms reported), which limits.sh's did not. Under 1 s: the
# deadline killed it, not the RLIMIT_CPU backstop (2 s for 200 ms).
check_eq "...the CPU figure is the one the last answer gave" "$ANS_CPU" "$cpu"
native rlimits check_range "...CPU at least the limit, killed by the deadline (under 1 s)" 200000 999999 "$cpu"
native rlimits check_range "...user + sys add up to the CPU figure (within 1 ms)" $((cpu - 1000)) "$cpu" $((user + sys))
native rlimits check_range "...wall time at least the CPU time of one thread" "$cpu" 10000000 "$(get cpu wall_us)"
check_re "...the source of every figure is named" "rusage|cgroup[12] (cpu.stat|cpuacct)" "$(get cpu sources.cpu)"

mkfifo "$T/mem.go"
pd_start --dir "$T/rep.mem" --report "$T/mem.json" -- "$PROGS/hold" 32 "$T/mem.ready" "$T/mem.go"
wait_for 10 test -e "$T/mem.ready"
timeout "$T_OP" bash -c 'echo go > "$1"' _ "$T/mem.go"
pd_poll "$T/rep.mem" 5
wait0 "$T/rep.mem"
wait_for 5 test -e "$T/mem.json"
check_eq "report of a program holding 32 MiB: head" "exited 0" "$(get mem status.head)"
check_range "...peak memory at least 32 MiB" $((32 << 20)) $((64 << 20)) "$(get mem peak_memory_bytes)"

check_eq "no temporary file is left beside the reports" "" "$(ls -A "$T" | grep '^\.' || true)"

done_testing
