#!/bin/sh
# SPDX-License-Identifier: ISC
# Build proctor from a fresh checkout, install it (as root: meson install),
# and either show the protocol on real programs (demo) or run the whole test
# suite, plain, sanitized and on pure cgroup v2 in a VM (test).
#
#   sh contrib/quickstart.sh demo
#   sh contrib/quickstart.sh test
#
# test runs the plain suite, then the cgroup v2 suites in a VM; beside them,
# at nice 19, the sanitizer suite (without its timing checks, the
# integration scripts and the Python client: --setup sanitizer), the black-box
# tests that CI runs with proctord under valgrind (meson test --setup
# valgrind; --setup valgrindall has them all), the fuzz targets for a
# bounded time and the static analysers (tests/lint.sh), these in a cpu
# cgroup of a low weight, beside the VM. A test that fails is run once more,
# alone; the end of the output names every test that failed once.
#
# Missing build dependencies are installed with apt-get (Debian, Ubuntu).
# shellcheck disable=SC2016 # single-quoted $ is shown or run by a child sh
set -eu

usage() {
  echo "usage: sh contrib/quickstart.sh demo|test" >&2
  exit 2
}

[ $# -eq 1 ] || usage
case $1 in
  demo | test) mode=$1 ;;
  -h | --help)
    echo "usage: sh contrib/quickstart.sh demo|test"
    exit 0
    ;;
  *) usage ;;
esac

# Work from the top of the source tree, wherever we were called from.
here=$(dirname -- "$0")
cd -- "$here/.."
if [ ! -f meson.build ] || [ ! -d src ]; then
  echo "quickstart: cannot find the proctor source tree at $(pwd)" >&2
  exit 1
fi
top=$(pwd)

say() { printf '\n==> %s\n' "$*"; }

# ---------------------------------------------------------------------------
# Dependencies

# pkg_installed PKG: is the Debian package PKG installed?
pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# have_dep PKG: is what PKG provides already here? A tool counts whichever
# package brought it (pkgconf provides pkg-config, for instance).
have_dep() {
  case $1 in
    build-essential) command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 ;;
    meson) command -v meson >/dev/null 2>&1 ;;
    ninja-build) command -v ninja >/dev/null 2>&1 ;;
    pkg-config) command -v pkg-config >/dev/null 2>&1 ;;
    util-linux) command -v flock >/dev/null 2>&1 ;;
    python3) command -v python3 >/dev/null 2>&1 ;;
    procps) command -v ps >/dev/null 2>&1 ;;
    clang | clang-tidy | cppcheck | valgrind | strace) command -v "$1" >/dev/null 2>&1 ;;
    *) pkg_installed "$1" ;;
  esac
}

# What the test mode needs beyond the build: clang and its libFuzzer runtime
# for the fuzz targets, valgrind, the two static analysers, and
# bash-completion (tests/blackbox/completion.sh runs the completion under
# it, and meson installs it where its pkg-config file says).
test_deps="clang libclang-rt-14-dev valgrind cppcheck clang-tidy bash-completion"
test_deps="$test_deps python3-jsonschema" # tests/validate-report.py: every JSON the tests read
test_deps="$test_deps strace" # readers.sh, opener.sh, run-event.sh: proctord held or traced at a chosen call
# tests/blackbox/container.sh: Podman (runc: crun refuses hybrid hosts), the
# rootless run's newuidmap, the image's tools (40 s, 24 s of CPU to install)
test_deps="$test_deps podman runc uidmap busybox-static"

install_deps() {
  deps="build-essential meson ninja-build pkg-config libev-dev libbsd-dev libinih-dev libjansson-dev libseccomp-dev libcmocka-dev scdoc python3 util-linux procps"
  [ "$mode" != test ] || deps="$deps $test_deps"
  missing=
  for p in $deps; do
    have_dep "$p" || missing="$missing $p"
  done
  if [ -z "$missing" ]; then
    say "build dependencies: all present"
    return 0
  fi
  say "build dependencies missing:$missing"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "quickstart: no apt-get here; install the equivalents of:$missing" >&2
    exit 1
  fi
  sudo=
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=sudo
    else
      echo "quickstart: not root and no sudo; as root run:" >&2
      echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
      exit 1
    fi
  fi
  # shellcheck disable=SC2086 # $missing is a list of words
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
}

# ---------------------------------------------------------------------------
# Build

# setup_dir DIR [meson options...]: configure DIR, reusing it when it exists.
setup_dir() {
  dir=$1
  shift
  if [ -f "$dir/meson-private/coredata.dat" ]; then
    $low meson setup --reconfigure "$@" "$dir" ||
      $low meson setup --wipe "$@" "$dir"
  else
    $low meson setup "$@" "$dir"
  fi
}

build() {
  say "configuring and building in build/"
  setup_dir build && meson compile -C build
}

# install_build: as root, meson install: proctor, proctord, the man pages and
# the Python client, usable from any directory (the README's Quick start).
# Not root: how to.
install_build() {
  if [ "$(id -u)" -ne 0 ]; then
    say "not installed (not root): sudo meson install -C build, or see the README's Quick start"
    return 0
  fi
  say "installing (meson install -C build)"
  meson install -C build --no-rebuild || return 1
  # From elsewhere, as a user would: the PATH's proctor, and python3's.
  (
    cd /
    for c in proctor proctord; do
      if command -v "$c" >/dev/null 2>&1; then
        echo "$(command -v "$c"): $("$c" --version)"
      else
        echo "quickstart: $c is installed but not on the PATH ($PATH)"
      fi
    done
    pydir=$(sed -n 's|/proctor\.py$||p' "$top/build/meson-logs/install-log.txt")
    python3 -c 'import proctor; print("python3: import proctor:", proctor.__file__)' 2>/dev/null ||
      echo "quickstart: $(command -v python3) does not look in $pydir: PYTHONPATH=$pydir"
  )
}

# ---------------------------------------------------------------------------
# test

passed=0
failed=0
skipped=0
# The background lane's commands run as "$low CMD": nice -n 19 there.
low=

# count_results DIR RC JSON [FLAKY]: add the results of a `meson test -C DIR`
# to the totals. JSON (meson-logs/testlog*.json) has one object per test,
# with a top-level "result". FLAKY of its failures passed when run again:
# they count as passed.
count_results() {
  log=$3
  p=0 f=0 s=0
  if [ -f "$log" ]; then
    # Inside string values quotes are escaped, so only the key matches.
    results=$(grep -o '"result": "[A-Z]*"' "$log" | sed 's/.*: "\(.*\)"/\1/') || results=
    for r in $results; do
      case $r in
        OK | EXPECTEDFAIL) p=$((p + 1)) ;;
        SKIP) s=$((s + 1)) ;;
        *) f=$((f + 1)) ;; # FAIL, TIMEOUT, UNEXPECTEDPASS, ERROR, INTERRUPT
      esac
    done
  fi
  fl=${4:-0}
  # meson failed but no test is to blame (a build error, say): count the run.
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
  fi
  p=$((p + fl))
  f=$((f - fl))
  if [ "$fl" -gt 0 ]; then
    echo "$1: $p passed ($fl only when run again), $f failed, $s skipped"
  else
    echo "$1: $p passed, $f failed, $s skipped"
  fi
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
}

# meson_test DIR SETUP LOGBASE [ARGS...]: meson test in DIR (with --setup
# SETUP unless it is empty), output shown as it comes; its exit code in $rc,
# its log in $mt_json (meson adds -SETUP to LOGBASE). The code goes through
# a file because a POSIX pipeline only reports its last command's.
meson_test() {
  mt_dir=$1 mt_setup=$2 mt_log=$3
  shift 3
  mt_json=$mt_dir/meson-logs/$mt_log${mt_setup:+-$mt_setup}.json
  rm -f "$mt_json"
  rcfile=$mt_dir/.quickstart-rc-$mt_log${mt_setup:+-$mt_setup}
  echo 1 >"$rcfile"
  {
    mt_rc=0
    # Built already, and only what the tests need (build-fuzz/); the setups
    # run the build/ of the plain suite, maybe beside it: no second ninja in
    # the same directory.
    $low meson test -C "$mt_dir" --no-rebuild ${mt_setup:+--setup "$mt_setup"} \
      --logbase "$mt_log" --print-errorlogs "$@" </dev/null || mt_rc=$?
    echo "$mt_rc" >"$rcfile"
  } 2>&1 | cat
  rc=$(cat "$rcfile")
  rm -f "$rcfile"
}

# run_tests DIR [SETUP]: the suite of DIR (with --setup SETUP), then each test
# that failed once more, alone. One that passes then is a flake: it counts as
# passed, and the summary names it with its failed checks and the end of its
# first log. One that fails again is a failure, named there too.
run_tests() {
  meson_test "$1" "${2:-}" testlog
  first_rc=$rc
  first_json=$mt_json
  again=$(python3 tests/testlog.py failed "$first_json") || again=
  flaky=0
  if [ -n "$again" ]; then
    say "$1: running each failed test once more, alone"
    printf '%s\n' "$again" | while read -r suite name result; do
      meson_test "$1" "${2:-}" testlog-again --num-processes 1 --suite "${suite%%+*}" "$name"
      if [ "$rc" -eq 0 ] && [ -z "$(python3 tests/testlog.py failed "$mt_json")" ]; then
        verdict="flaky (a $result, then passed alone)"
      else
        verdict="FAILED (a $result, and again alone)"
      fi
      {
        echo "$1${2:+ --setup $2}: $suite / $name: $verdict; its failed checks and the end of its first log:"
        python3 tests/testlog.py tail "$first_json" "$name" 40 | sed 's/^/    /'
      } >>"$report_file"
      case $verdict in flaky*) echo >>"$report_file.flaky" ;; esac
    done
    [ ! -f "$report_file.flaky" ] || flaky=$(wc -l <"$report_file.flaky")
    rm -f "$report_file.flaky"
  fi
  count_results "$1" "$first_rc" "$first_json" "$flaky"
}

summary() {
  if [ -s "$report_file" ]; then
    say "the tests that failed once, and what they printed last"
    cat "$report_file"
  fi
  echo
  echo "$passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
}

do_test() {
  # Every temporary file of the tests goes into a directory of this run's
  # own, never into the /tmp that other users of the machine share.
  TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/proctor-ci.XXXXXX") || exit 1
  # Searchable by all: some tests run proctord or the program as nobody,
  # below directories of their own in here.
  chmod 0711 "$TMPDIR"
  export TMPDIR
  # The failures and flakes, named again at the end (summary).
  report_file=$TMPDIR/failures
  trap 'rm -rf "$TMPDIR"' EXIT
  trap 'exit 130' INT TERM
  if ! build; then
    echo "build: the build failed, no test was run"
    failed=1
    summary
    return
  fi
  if ! install_build; then
    echo "install: meson install -C build failed"
    failed=$((failed + 1))
  fi
  # Two lanes share the 2 CPUs. This one runs what measures time: the plain
  # suite, whose timing scripts run one at a time and leave a CPU mostly
  # idle (371 s of wall and 374 s of CPU alone here), then the VM's suites,
  # which measure time in an emulated machine. The background lane, at nice
  # 19, builds build-asan, then runs what measures no time: the sanitizer
  # suite (its timing checks skipped, its scripts two at a time), the
  # black-box tests under valgrind (their timing checks are skipped there
  # too), the fuzzers and the static analysers. The analysers, last, run in
  # a cpu cgroup of a low weight (lane_cgroup), where they take only what
  # this lane leaves: they go on beside the VM (qemu took 268 s of CPU in
  # 236 s here, one CPU mostly idle), which waits only for what comes
  # before them.
  lane_dir=$TMPDIR/lane
  mkdir "$lane_dir"
  background_lane >"$lane_dir/log" 2>&1 </dev/null &
  lane_pid=$!
  # Only while the lane runs: once waited for, its pid may be another's.
  trap '[ -z "$lane_pid" ] || kill_tree "$lane_pid"; lane_cgroup_remove; rm -rf "$TMPDIR"' EXIT

  say "test suite (build/)"
  t0=$(date +%s)
  run_tests build
  echo "the test suite took $(($(date +%s) - t0)) s"

  # The VM measures time: it starts once the lane has ended or has only the
  # analysers left, in their cgroup of a low weight.
  while [ ! -f "$lane_dir/lint-only" ] && kill -0 "$lane_pid" 2>/dev/null; do
    sleep 1
  done
  vm_test
  join_lane
  summary
}

# kill_tree PID: PID and all its descendants (an interrupted CI's lane).
kill_tree() {
  for c in $(pgrep -P "$1" 2>/dev/null); do
    kill_tree "$c"
  done
  kill "$1" 2>/dev/null || :
}

# sanitizer_options: UB aborts instead of printing and going on, so a test
# cannot pass over it.
sanitizer_options() {
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
  UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
  export ASAN_OPTIONS UBSAN_OPTIONS
}

# lane_cgroup: move this shell, the background lane, into a cpu cgroup of
# its own (LANE_CG), with a quarter of the weight of a foreground session;
# say where, or why not. nice 19 alone does not hold the lane back: with the
# kernel's autogroups (/proc/sys/kernel/sched_autogroup_enabled), nice only
# orders the processes of one session, and each session gets an equal share
# of the CPU whatever its nice (measured here: a loop at nice 19 in a session
# of its own beside one at nice 0 in another got 41.6% and 41.0% of a CPU;
# in a cgroup of cpu.shares 256, about 1% and 70%). A cpu cgroup is out of
# autogroups' reach. Only for what asserts no time: the valgrind suite's
# scripts have wall-clock bounds of their own (box-trust.sh's 15 s,
# output.sh's 3 s), which failed with the whole lane in such a cgroup.
lane_cgroup() {
  LANE_CG=
  if [ "$(id -u)" -ne 0 ]; then
    echo "lane: not root, so no cpu cgroup of its own: nice 19 only"
    return 0
  fi
  # The cgroup v1 hierarchy of the cpu controller, else cgroup2.
  lc_mnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") {
      if ($(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)cpu(,|$)/) { print $5; exit }
      break } }' /proc/self/mountinfo)
  if [ -n "$lc_mnt" ]; then
    lc_rel=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}cpu\(,[^:]*\)\{0,1\}://p' /proc/self/cgroup)
    lc_file=cpu.shares lc_weight=256 # of 1024
  else
    lc_mnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") {
        if ($(i + 1) == "cgroup2") { print $5; exit }
        break } }' /proc/self/mountinfo)
    lc_rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
    lc_file=cpu.weight lc_weight=25 # of 100
    if [ -n "$lc_mnt" ] && ! grep -qw cpu "$lc_mnt${lc_rel%/}/cgroup.subtree_control" 2>/dev/null; then
      echo "lane: the cpu controller is not enabled below $lc_mnt${lc_rel%/}: nice 19 only"
      return 0
    fi
  fi
  if [ -z "$lc_mnt" ]; then
    echo "lane: no cgroup file system with the cpu controller: nice 19 only"
    return 0
  fi
  lc_cg=$lc_mnt${lc_rel%/}/proctor-ci-lane.$$
  if ! mkdir "$lc_cg" 2>/dev/null; then
    echo "lane: cannot create $lc_cg: nice 19 only"
    return 0
  fi
  # "0": the process that writes, this shell (echo is a builtin).
  if echo "$lc_weight" >"$lc_cg/$lc_file" 2>/dev/null && echo 0 >"$lc_cg/cgroup.procs" 2>/dev/null; then
    LANE_CG=$lc_cg
    echo "lane: in $lc_cg ($lc_file $lc_weight), at nice 19"
  else
    rmdir "$lc_cg" 2>/dev/null
    echo "lane: cannot set $lc_file in or move into $lc_cg: nice 19 only"
  fi
}

# lane_cgroup_remove: remove the lane's cgroup (its processes are gone) and
# any cgroup a test left below it, deepest first.
lane_cgroup_remove() {
  lc_cg=$(cat "$lane_dir/cgroup" 2>/dev/null) || lc_cg=
  [ -n "$lc_cg" ] && [ -d "$lc_cg" ] || return 0
  find "$lc_cg" -depth -type d -exec rmdir {} + 2>/dev/null
  [ ! -d "$lc_cg" ] || echo "lane: $lc_cg is left: $(wc -l <"$lc_cg/cgroup.procs") processes in it"
}

# background_lane: build-asan and its suite, then valgrind, fuzz and lint,
# all at nice 19, lint also in a cpu cgroup of a low weight (lane_cgroup;
# then $lane_dir/lint-only says so); the totals of its tests go to
# $lane_dir/totals as "PASSED FAILED SKIPPED".
background_lane() {
  low="nice -n 19"
  # Without CAP_SYS_NICE, nothing in the lane can climb back over the
  # foreground: proctord raises itself to nice -10 and SCHED_FIFO where it
  # may, and its test programs would then run at nice 9, not 19.
  if setpriv --bounding-set=-sys_nice true 2>/dev/null; then
    low="setpriv --bounding-set=-sys_nice $low"
  fi
  report_file=$lane_dir/failures
  t0=$(date +%s)
  say "building build-asan/ (background lane)"
  sanitizer_options
  asan_rc=0
  { setup_dir build-asan -Db_sanitize=address,undefined -Db_lundef=false &&
    $low meson compile -C build-asan; } || asan_rc=$?
  echo "build-asan: built in $(($(date +%s) - t0)) s (exit $asan_rc)"
  if [ "$asan_rc" -eq 0 ]; then
    say "test suite under AddressSanitizer and UBSan (build-asan/, --setup sanitizer; no timing checks)"
    t0=$(date +%s)
    run_tests build-asan sanitizer
    echo "the sanitizer suite took $(($(date +%s) - t0)) s"
  else
    echo "build-asan: the sanitizer build failed"
    failed=$((failed + 1))
  fi
  test_valgrind
  test_fuzz
  # The analysers measure and assert no time: they take only what the
  # foreground leaves, and the VM need not wait for them.
  lane_cgroup
  if [ -n "$LANE_CG" ]; then
    echo "$LANE_CG" >"$lane_dir/cgroup"
    : >"$lane_dir/lint-only"
  fi
  test_lint
  echo "$passed $failed $skipped" >"$lane_dir/totals"
}

# join_lane: wait for the background lane, show what it printed, count it.
# The foreground has nothing left to run: the analysers' cgroup gets the
# usual weight back. Else, beside other work on the machine (CI under
# load's two CPU hogs), they were still running 6 minutes after the VM had
# ended, each clang-tidy at some 8% of a CPU.
join_lane() {
  t0=$(date +%s)
  lc_cg=$(cat "$lane_dir/cgroup" 2>/dev/null) || lc_cg=
  if [ -f "$lc_cg/cpu.shares" ]; then
    echo 1024 >"$lc_cg/cpu.shares" 2>/dev/null || :
  elif [ -f "$lc_cg/cpu.weight" ]; then
    echo 100 >"$lc_cg/cpu.weight" 2>/dev/null || :
  fi
  wait "$lane_pid" || :
  lane_pid=
  lane_cgroup_remove
  say "the background lane (waited $(($(date +%s) - t0)) s for it)"
  cat "$lane_dir/log"
  [ ! -s "$lane_dir/failures" ] || cat "$lane_dir/failures" >>"$report_file"
  if read -r p f s <"$lane_dir/totals"; then
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
  else
    echo "lane: it ended before its totals"
    failed=$((failed + 1))
  fi
}

# test_lint: cppcheck and clang-tidy over the sources (tests/lint.sh), one
# result per tool.
test_lint() {
  say "static analysis: cppcheck and clang-tidy (tests/lint.sh)"
  t0=$(date +%s)
  # --fast: clang's analyzer on src/ only (tests/ get the other checks);
  # sh tests/lint.sh build runs it on everything.
  lint_out=$($low sh tests/lint.sh --fast build 2>&1) || true
  printf '%s\n' "$lint_out"
  p=$(printf '%s\n' "$lint_out" | grep -c '^ok - ') || p=0
  f=$(printf '%s\n' "$lint_out" | grep -c '^not ok - ') || f=0
  # A lint.sh that could not run at all counts as one failure.
  [ $((p + f)) -gt 0 ] || f=1
  echo "lint: $p passed, $f failed, 0 skipped ($(($(date +%s) - t0)) s)"
  passed=$((passed + p))
  failed=$((failed + f))
}

# test_fuzz: the libFuzzer targets, built with clang, ASan and UBSan in
# build-fuzz/, each run for FUZZ_SECONDS (10) seconds.
test_fuzz() {
  say "fuzzing: each libFuzzer target for ${FUZZ_SECONDS:-10} s (build-fuzz/)"
  t0=$(date +%s)
  fuzz_rc=0
  CC=clang
  export CC
  # Only the fuzzers: one target per tests/fuzz/fuzz-NAME.c.
  fuzzers=
  for f in tests/fuzz/fuzz-*.c; do
    f=${f##*/}
    fuzzers="$fuzzers ${f%.c}"
  done
  # shellcheck disable=SC2086 # target names have no blanks
  { setup_dir build-fuzz -Dfuzz=true -Dfuzz_seconds="${FUZZ_SECONDS:-10}" -Dtests=false \
    -Dman=disabled -Db_sanitize=address,undefined -Db_lundef=false &&
    $low meson compile -C build-fuzz $fuzzers; } || fuzz_rc=$?
  unset CC
  if [ "$fuzz_rc" -eq 0 ]; then
    run_tests build-fuzz
  else
    echo "build-fuzz: the fuzz build failed"
    failed=$((failed + 1))
  fi
  echo "fuzzing took $(($(date +%s) - t0)) s"
}

# test_valgrind: the black-box tests again, every proctord under memcheck.
test_valgrind() {
  say "black-box tests with proctord under valgrind (meson test --setup valgrind)"
  t0=$(date +%s)
  run_tests build valgrind
  echo "valgrind took $(($(date +%s) - t0)) s"
}

# ---------------------------------------------------------------------------
# test: the cgroup v2 suites in a VM
#
# This machine may have cgroup v1 or a hybrid, so tests/vm/run-v2.sh boots a
# Debian kernel in qemu with cgroup v1 disabled and runs the suites there. It
# needs qemu, busybox-static and cpio, installed here, and fetches the kernel
# itself. One result in the totals: passed, failed, or skipped with a reason.

vm_test() {
  say "cgroup v2 suites in a VM (tests/vm/run-v2.sh build)"
  vm_t0=$(date +%s)
  vm_missing=
  command -v qemu-system-x86_64 >/dev/null 2>&1 || vm_missing="$vm_missing qemu-system-x86"
  [ -x /bin/busybox ] || vm_missing="$vm_missing busybox-static"
  command -v cpio >/dev/null 2>&1 || vm_missing="$vm_missing cpio"
  if [ -n "$vm_missing" ]; then
    vm_sudo=
    [ "$(id -u)" -eq 0 ] || vm_sudo=sudo
    if ! command -v apt-get >/dev/null 2>&1 ||
      { [ -n "$vm_sudo" ] && ! command -v sudo >/dev/null 2>&1; }; then
      echo "vm: skipped: missing$vm_missing, and no apt-get or sudo to install them"
      skipped=$((skipped + 1))
      return
    fi
    echo "vm: installing$vm_missing"
    # Update the package lists first only when they do not know a package
    # (install_deps has usually just updated them), and again if they were
    # stale.
    vm_known=yes
    for p in $vm_missing; do
      apt-cache show "$p" >/dev/null 2>&1 || vm_known=
    done
    if [ -z "$vm_known" ]; then
      $vm_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || :
    fi
    # shellcheck disable=SC2086 # $vm_missing is a list of words
    if ! $vm_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $vm_missing >/dev/null &&
      ! { $vm_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
        $vm_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $vm_missing >/dev/null; }; then
      echo "vm: installing$vm_missing failed"
      failed=$((failed + 1))
      return
    fi
  fi
  vm_log=$TMPDIR/vm.log
  echo 1 >"$vm_log.rc"
  {
    vm_rc=0
    bash tests/vm/run-v2.sh build || vm_rc=$?
    echo "$vm_rc" >"$vm_log.rc"
  } 2>&1 | tee "$vm_log"
  vm_rc=$(cat "$vm_log.rc")
  echo "vm: the VM step took $(($(date +%s) - vm_t0)) s"
  if [ "$vm_rc" != 0 ] && [ "$vm_rc" != 77 ]; then
    # For the end of the output: the suites that failed, and each failed
    # check with its diagnostics (a TODO is not a failure).
    {
      echo "vm (tests/vm/run-v2.sh build): FAILED (exit $vm_rc):"
      awk '/^== .*: FAIL/ { print; next }
        /^not ok / && !/# TODO/ { show = 1; print; next }
        /^(not )?ok / { show = 0; next }
        show && /^#/ { print }' "$vm_log" | head -n 60 | sed 's/^/    /'
    } >>"$report_file"
  fi
  case $vm_rc in
    0) passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;; # run-v2.sh said why
    *) failed=$((failed + 1)) ;;
  esac
}

# ---------------------------------------------------------------------------
# demo

proctord=$top/build/src/proctord
box=

# call DIR REQ: one wait call, the way any client makes it: take the sandbox's
# lock, write the request to the wait FIFO, read the answer from the status
# FIFO to EOF. Every step that could block is under a timeout, so a server that
# is gone or stuck makes the demo fail instead of hang.
call() {
  timeout 10 sh -c '
    exec 9<"$1/lock" || exit 1
    flock -w 5 9 || exit 1
    printf "%s\n" "$2" >"$1/wait" && cat "$1/status"
  ' sh "$1" "$2"
}

# show DIR REQ: print the command a person would type, run it, annotate.
show() {
  printf '$ echo %s > "$box/wait"; cat "$box/status"\n' "$2"
  if ! answer=$(call "$1" "$2"); then
    echo "quickstart: no answer from proctord within 10 s" >&2
    exit 1
  fi
  printf '%s\n' "$answer" | sed 's/^/  /'
  cpu=$(printf '%s\n' "$answer" | sed -n 1p)
  mem=$(printf '%s\n' "$answer" | sed -n 2p)
  printf '  (CPU %d.%03d ms, resident %d KiB)\n' \
    "$((cpu / 1000))" "$((cpu % 1000))" "$((mem / 1024))"
}

# quote ARG: ARG as one would type it at a shell.
quote() {
  case $1 in
    *[!A-Za-z0-9_./=:,+-]* | '') printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
  esac
}

# start ARGS...: start proctord in the background; sets $box. Its stdout goes
# to a file rather than through $(...), so that nothing here waits for EOF.
start() {
  printf '$ box=$(proctord --daemonize'
  for a in "$@"; do
    printf ' %s' "$(quote "$a")"
  done
  printf ')\n'
  out=$(mktemp)
  if ! timeout 10 "$proctord" --daemonize "$@" >"$out"; then
    rm -f "$out"
    echo "quickstart: proctord did not start" >&2
    exit 1
  fi
  box=$(cat "$out")
  rm -f "$out"
  echo "  $box  (holds: $(cd "$box" && echo *))"
}

# finish: the terminating wait, then check that proctord cleaned up.
finish() {
  show "$box" 0
  i=0
  while [ -e "$box" ] && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if [ -e "$box" ]; then
    echo "  (proctord has not removed $box yet)"
  else
    echo "  (proctord removed $box and exited)"
  fi
  box=
}

# poll_until HEAD: "1" waits every 100 ms until the status starts with HEAD.
poll_until() {
  i=0
  while :; do
    if ! answer=$(call "$box" 1); then
      echo "quickstart: no answer from proctord within 10 s" >&2
      exit 1
    fi
    case $(printf '%s\n' "$answer" | sed -n 3p) in
      "$1"*) break ;;
    esac
    i=$((i + 1))
    if [ $i -ge 100 ]; then
      echo "quickstart: status never became \"$1\"" >&2
      exit 1
    fi
    sleep 0.1
  done
  [ $i -eq 0 ] || echo "  ($i earlier polls of \"1\", 100 ms apart, answered running)"
  show "$box" 1
}

# If the demo stops half-way, still end the sandbox it started.
cleanup() {
  if [ -n "$box" ] && [ -p "$box/wait" ]; then
    call "$box" 0 >/dev/null 2>&1 || true
  fi
}

do_demo() {
  build || exit 1
  install_build || exit 1
  trap cleanup EXIT
  trap 'exit 130' INT TERM

  say "1. A program that computes for a while, then sleeps"
  echo "proctord starts it, makes a sandbox directory with two FIFOs, prints"
  echo "its path and goes to the background. Each wait call writes 1 (go on)"
  echo "or 0 (terminate) to \$box/wait and reads three lines from"
  echo "\$box/status: CPU microseconds, resident bytes, status line."
  start --cpu-time 10s -- sh -c \
    'i=0; while [ $i -lt 1200000 ]; do i=$((i+1)); done; exec sleep 30'
  echo
  echo "Polling with \"1\" while it computes: the CPU figure grows."
  for _ in 1 2 3; do
    sleep 0.25
    show "$box" 1
  done
  # Wait (quietly) for the computation to end, however fast this machine is.
  last=-1
  i=0
  while [ $i -lt 100 ]; do
    answer=$(call "$box" 1) || break
    cpu=$(printf '%s\n' "$answer" | sed -n 1p)
    [ "$cpu" != "$last" ] || break
    last=$cpu
    i=$((i + 1))
    sleep 0.3
  done
  echo
  echo "It now sleeps: CPU stays put, the status is still running."
  show "$box" 1
  sleep 0.5
  show "$box" 1
  echo
  echo "The terminating wait: 50 ms of grace (no signal), then the whole"
  echo "process tree is killed. The answer carries the final figures (memory"
  echo "0), then proctord removes the sandbox directory and exits."
  finish

  say "2. A wall-clock limit: --wall-time 300ms on sleep 5"
  start --wall-time 300ms -- sleep 5
  show "$box" 1
  poll_until "killed wall-time"
  finish

  say "3. A CPU-time limit over the whole tree: --cpu-time 500ms"
  echo "Two busy processes share one budget: on two CPUs it is used up in"
  echo "about 250 ms of wall time."
  start --cpu-time 500ms -- sh -c \
    'sh -c "while :; do :; done" & while :; do :; done'
  poll_until "killed cpu-time"
  finish

  say "4. A program that ends by itself; waits go on answering"
  start -- sh -c 'exit 3'
  poll_until "exited"
  show "$box" 1
  finish

  say "5. An invalid request is answered too; the program is left alone"
  start -- sleep 5
  show "$box" hello
  finish

  echo
  echo "Demo done. The protocol is described in proto/PROTOCOL.md."
}

install_deps
case $mode in
  demo) do_demo ;;
  test) do_test ;;
esac
