#!/bin/bash
# SPDX-License-Identifier: ISC
# Run black-box suites on a pure cgroup v2 machine: a Debian kernel booted in
# qemu with cgroup v1 disabled, an initramfs holding proctord, the test
# programs, the suites and the host tools they use; prints each suite's TAP.
#
#   tests/vm/run-v2.sh BUILD_DIR [SUITE...]
#
# SUITE is a name: tests/vm/NAME.sh or else tests/blackbox/NAME.sh. Without
# one, the suites in default_suites below are run. Each runs with bash, as
# root, in the cgroup /test.slice/NAME, with PROCTORD, PROCTOR and PROGS set
# (as by tests/blackbox/meson.build, but without BLACKBOX_TAP: the exit
# status counts) and PROCTOR_TEST_SCOPE (see tests/vm/init). Exit status: 0
# when every suite passed, 1 when one failed or the booted VM did not
# report, 2 on a usage error, 77 when no VM can be run here: tools missing,
# or qemu failed to start (or the kernel to boot) in every way tried (the
# reasons are printed).
#
# Environment:
#   PROCTOR_VM_KERNEL   a bzImage to boot instead of Debian's cloud kernel
#   PROCTOR_VM_CACHE    where the kernel is kept between runs
#                       (default: ${XDG_CACHE_HOME:-~/.cache}/proctor-vm)
#   PROCTOR_VM_TIMEOUT  seconds before the VM is killed (default 1200)
#   PROCTOR_VM_SUITE_TIMEOUT  seconds for one suite (default 600)
#   PROCTOR_VM_ACCEL    the ways to run qemu, tried in order until the kernel
#                       boots: ACCEL[:CPU]... with ACCEL kvm or tcg (default:
#                       "kvm:host kvm:max kvm:kvm64 kvm:qemu64 tcg:max",
#                       "tcg:max" without a usable /dev/kvm)
#   PROCTOR_VM_BOOT_TIMEOUT  seconds for the kernel to reach /init before the
#                       next way is tried (default 30)
set -euo pipefail

# Under TCG the VM is several times slower than the host: suites that time
# things to the millisecond (limits, sections, terminate, protocol, client)
# fail there, and tree's 500 ms wall-time case races on a loaded machine.
default_suites=(v2-facts shell memory cgroup cpuset container)

# Host commands copied into the VM with their libraries, so that the suites
# meet the same tools as on the host; busybox provides whatever else they call.
vm_tools=(bash sh grep sed awk find xargs getconf flock setpriv script setsid prlimit
  timeout env nice unshare nsenter mount cat cp mv rm ln ls mkdir rmdir mkfifo mktemp touch chmod stat
  readlink realpath dirname basename head tail cut tr sort uniq wc seq sleep date
  id nproc printf echo test true false tee dd od stty taskset df)

usage() {
  echo "usage: tests/vm/run-v2.sh BUILD_DIR [SUITE...]" >&2
  exit 2
}

say() { printf '%s\n' "vm: $*" >&2; }
cannot_run() {
  say "skipped: $*"
  exit 77
}
die() {
  say "$*"
  exit 1
}

[ $# -ge 1 ] || usage
case $1 in
  -h | --help)
    sed -n '3,31s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
  -*) usage ;;
esac

src=$(cd -- "$(dirname -- "$0")/../.." && pwd)
build=$(realpath -e -- "$1" 2>/dev/null) || {
  echo "vm: no build directory at $1" >&2
  exit 2
}
shift
for f in src/proctord src/proctor tests/progs/hold; do
  if [ ! -x "$build/$f" ]; then
    echo "vm: $build/$f is missing: build first (meson compile -C $build)" >&2
    exit 2
  fi
done

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=("${default_suites[@]}")
declare -A suite_path=()
for s in "${suites[@]}"; do
  if [[ ! $s =~ ^[A-Za-z0-9_-]+$ ]]; then
    echo "vm: bad suite name \"$s\": give the name of a tests/vm or tests/blackbox script, without .sh" >&2
    exit 2
  elif [ -n "${suite_path[$s]:-}" ]; then
    echo "vm: suite $s is named twice" >&2
    exit 2
  elif [ -f "$src/tests/vm/$s.sh" ]; then
    suite_path[$s]=/proctor/tests/vm/$s.sh
  elif [ -f "$src/tests/blackbox/$s.sh" ]; then
    suite_path[$s]=/proctor/tests/blackbox/$s.sh
  else
    echo "vm: no suite $s (tests/vm/$s.sh, tests/blackbox/$s.sh)" >&2
    exit 2
  fi
done

[ "$(uname -m)" = x86_64 ] || cannot_run "the VM is x86_64 and this machine is $(uname -m)"
command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (Debian: apt-get install --no-install-recommends qemu-system-x86)"
[ -x /bin/busybox ] || cannot_run "no /bin/busybox (Debian: apt-get install busybox-static)"
command -v cpio >/dev/null || cannot_run "no cpio (Debian: apt-get install cpio)"
command -v ldd >/dev/null || cannot_run "no ldd to find the libraries of the programs"

vmdir=$build/vm
mkdir -p "$vmdir"

# ---------------------------------------------------------------------------
# The kernel: Debian's cloud kernel (small, boots in seconds), fetched once.

kernel_cache=${PROCTOR_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor-vm}

# kernel_package: set pkg and ver to the package that holds the kernel, and
# kernel to its place in the cache. The meta-package depends on the current
# ABI's package.
kernel_package() {
  local meta
  pkg=''
  for meta in linux-image-cloud-amd64 linux-image-amd64; do
    pkg=$(apt-cache depends "$meta" 2>/dev/null |
      awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
    [ -z "$pkg" ] || break
  done
  [ -n "$pkg" ] || die "apt-cache knows no linux-image-cloud-amd64 or linux-image-amd64 (apt-get update?)"
  ver=$(apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -n 1)
  kernel=$kernel_cache/vmlinuz-$pkg-${ver//:/_}
}

# kernel_download DIR: the package's .deb into DIR.
kernel_download() {
  # apt drops to the _apt user to download, who cannot write to a private
  # directory; as root, download as root instead of warning about it.
  local opts=()
  [ "$(id -u)" -ne 0 ] || opts=(-o APT::Sandbox::User=root)
  (cd "$1" && apt-get download "${opts[@]}" "$pkg=$ver" >&2)
}

fetch_kernel() {
  local tmp f
  if [ -n "${PROCTOR_VM_KERNEL:-}" ]; then
    [ -f "$PROCTOR_VM_KERNEL" ] || die "PROCTOR_VM_KERNEL=$PROCTOR_VM_KERNEL is not a file"
    kernel=$PROCTOR_VM_KERNEL
    return
  fi
  if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
    cannot_run "no apt-get to fetch a kernel: set PROCTOR_VM_KERNEL to a bzImage"
  fi
  kernel_package
  [ -s "$kernel" ] && return
  mkdir -p "$kernel_cache"
  tmp=$(mktemp -d "$kernel_cache/fetch.XXXXXX")
  say "fetching $pkg $ver into $kernel_cache"
  # Stale package lists name a version the archive no longer has.
  if ! kernel_download "$tmp" &&
    ! { [ "$(id -u)" -eq 0 ] && say "updating the package lists and trying again" &&
      apt-get update -q >&2 && kernel_package && kernel_download "$tmp"; }; then
    rm -rf "$tmp"
    die "apt-get download $pkg=$ver failed"
  fi
  if ! dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'; then
    rm -rf "$tmp"
    die "no kernel in $pkg's package"
  fi
  # Keep only this kernel: the cache holds one at a time. Another run may be
  # booting this one: it is replaced by a rename, never removed.
  for f in "$kernel_cache"/vmlinuz-*; do
    [ "$f" = "$kernel" ] || rm -f "$f"
  done
  mv "$tmp"/boot/vmlinuz-* "$kernel"
  rm -rf "$tmp"
}

# ---------------------------------------------------------------------------
# The initramfs: busybox, the host tools with their libraries at their host
# paths (so the dynamic loader finds them), the build's programs and the suites.

root=$vmdir/root
declare -A want=() realdir=()
exes=()

# add_file FILE [DIR]: put FILE (following links) into DIR of the image, by
# default FILE's own directory with its links resolved. Forks are slow on a
# loaded machine, so nothing is copied yet: copy_files does it per directory.
add_file() {
  local dir=${1%/*} name=${1##*/}
  if [ $# -ge 2 ]; then
    dir=$2
  else
    [ -n "${realdir[$dir]:-}" ] || realdir[$dir]=$(realpath -e -- "$dir")
    dir=${realdir[$dir]}
  fi
  [ -n "${want[$dir/$name]:-}" ] || want[$dir/$name]=$1
}

# add_exe FILE [DIR]: a program; copy_files adds every shared library it
# needs, the dynamic loader included.
add_exe() {
  add_file "$@"
  exes+=("$1")
}

copy_files() {
  local lib libs dest dir
  local -A bydir=()
  # One ldd for all: it prints "FILE:" before each one's libraries.
  libs=$(ldd "${exes[@]}" 2>/dev/null | awk '
    $2 == "=>" && $3 ~ /^\// { print $3; next }
    $2 == "=>" && $3 == "not" { print "missing:" $1; next }
    $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u) || true
  [ -n "$libs" ] || die "ldd found no library for the programs of the image"
  for lib in $libs; do
    case $lib in
      missing:*) die "ldd cannot find ${lib#missing:}, which a program of the image needs" ;;
    esac
    add_file "$lib"
  done
  for dest in "${!want[@]}"; do
    dir=${dest%/*}
    bydir[$dir]+=${want[$dest]}$'\n'
  done
  for dir in "${!bydir[@]}"; do
    mkdir -p "$root$dir"
    mapfile -t srcs < <(printf %s "${bydir[$dir]}")
    cp -L -- "${srcs[@]}" "$root$dir/"
  done
}

build_initramfs() {
  local d t f
  rm -rf "$root"
  mkdir -p "$root"/{proc,sys,dev,tmp,run,root,etc,usr/bin}
  # A merged /usr shows as links at the top; the image has the same ones.
  for d in bin sbin lib lib32 lib64 libx32; do
    if [ -L "/$d" ]; then
      t=$(readlink "/$d")
      ln -s "$t" "$root/$d"
      case $t in
        /*) mkdir -p "$root$t" ;;
        *) mkdir -p "$root/$t" ;;
      esac
    elif [ "$d" = bin ] || [ "$d" = sbin ]; then
      mkdir -p "$root/$d"
    fi
  done

  add_exe /bin/busybox
  for t in "${vm_tools[@]}"; do
    f=$(type -P "$t") || die "no $t on this machine: the suites need it"
    add_exe "$f"
  done
  printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' \
    >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$root/etc/group"

  add_exe "$build/src/proctord" /proctor/build/src
  add_exe "$build/src/proctor" /proctor/build/src
  for f in "$build"/tests/progs/*; do
    if [ -f "$f" ] && [ -x "$f" ]; then
      add_exe "$f" /proctor/build/tests/progs
    fi
  done
  copy_files
  # Busybox for everything else (mount, poweroff, ps...), last on the PATH.
  mkdir "$root/busybox"
  /bin/busybox --install -s "$root/busybox"
  mkdir -p "$root/proctor/tests/blackbox" "$root/proctor/tests/vm"
  cp "$src"/tests/blackbox/*.sh "$root/proctor/tests/blackbox/"
  cp "$src"/tests/vm/*.sh "$root/proctor/tests/vm/"
  # container.sh runs contrib/container's entry point.
  mkdir -p "$root/proctor/contrib/container"
  cp "$src"/contrib/container/*.sh "$root/proctor/contrib/container/"
  cp "$src/tests/vm/init" "$root/init"
  chmod 0755 "$root/init"

  for s in "${suites[@]}"; do
    echo "$s ${suite_path[$s]}"
  done >"$root/proctor/suites"
  cat >"$root/proctor/env" <<EOF
PROCTORD=/proctor/build/src/proctord
PROCTOR=/proctor/build/src/proctor
PROGS=/proctor/build/tests/progs
EOF

  (cd "$root" && find . -print0 | LC_ALL=C sort -z |
    cpio --null -o -H newc -R 0:0 --quiet) >"$vmdir/initramfs.cpio"
}

# ---------------------------------------------------------------------------
# The run

# parse_results FILE NONCE SUITE...: print each suite's TAP with a verdict;
# exit 0 when every suite ran to its end, with status 0, a plan and as many
# results as planned, none of them "not ok" (TODO aside), no "Bail out!",
# and not all of them skipped: the VM is there so that they run.
parse_results() {
  local file=$1 nonce=$2
  shift 2
  tr -d '\r' <"$file" | awk -v m="@@proctor-vm:$nonce" -v want="$*" '
    function verdict(name, why) {
      if (why == "") {
        pass++
        printf "== %s: PASS (%d tests%s, %s s)\n", name, n, skip ? ", " skip " skipped" : "", secs
      }
      else { fail++; printf "== %s: FAIL (%s)\n", name, why }
    }
    function close_suite(why) {
      if (cur == "") return
      if (why == "") {
        if (rc != 0) why = "exit status " rc
        else if (plan == "") why = "no plan"
        else if (n != plan) why = "planned " plan ", ran " n
        else if (bad) why = bad " not ok"
        else if (bail) why = "bailed out"
        else if (n == 0) why = "no test ran"
        else if (skip == n) why = "every test skipped"
      }
      verdict(cur, why)
      cur = ""
    }
    index($0, m " ") == 1 {
      split(substr($0, length(m) + 2), f, " ")
      if (f[1] == "info") { print "# vm: " substr($0, length(m) + 7); next }
      if (f[1] == "begin") {
        close_suite("did not end")
        cur = f[2]; seen[cur] = 1; n = 0; plan = ""; bad = 0; bail = 0; skip = 0
        printf "== %s\n", cur
        next
      }
      if (f[1] == "end" && f[2] == cur) { rc = f[3]; secs = f[4]; close_suite(""); next }
      if (f[1] == "done") { done = 1; next }
    }
    cur == "" { print "# vm: " $0; next }
    { print }
    /^ok( |$)/ { n++; if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skip++ }
    /^not ok( |$)/ { n++; if ($0 !~ /# *TODO/) bad++ }
    /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
    /^Bail out!/ { bail = 1 }
    END {
      close_suite("did not end: the VM stopped")
      k = split(want, w, " ")
      for (i = 1; i <= k; i++)
        if (!(w[i] in seen)) verdict(w[i], "not run")
      printf "vm: %d suites passed, %d failed\n", pass, fail
      if (!done) print "vm: the VM did not report the end of the run"
      exit (fail > 0 || !done)
    }'
}

# The ways to run the VM, tried in order until one boots the kernel: KVM
# with the host's CPU, then with the most KVM offers (max), then with the
# named generic models (some hosts' KVM refuses to set up the host model,
# "failed to set MSR", and hangs the kernel on another), and emulation
# (TCG, several times slower) only when KVM takes none. Only a run whose
# kernel reached /init counts; a qemu that failed to start or a kernel that
# never booted moves on to the next way.
if [ -n "${PROCTOR_VM_ACCEL:-}" ]; then
  read -r -a attempts <<<"${PROCTOR_VM_ACCEL//,/ }"
  if [ ${#attempts[@]} -eq 0 ]; then
    echo "vm: PROCTOR_VM_ACCEL names no way to run qemu" >&2
    exit 2
  fi
elif [ -d /sys/module/kvm_pvm ] && [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
  # PVM (a KVM for hosts that are guests themselves, without nested
  # virtualisation) runs only kernels built as PVM guests: Debian's hangs
  # after "Probing EDD" under every CPU model, which cost 4 x 30 s here.
  say "/dev/kvm is PVM's (kvm_pvm), which boots only PVM guest kernels: emulating the CPU (TCG)"
  attempts=(tcg:max)
elif [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
  attempts=(kvm:host kvm:max kvm:kvm64 kvm:qemu64 tcg:max)
else
  say "no usable /dev/kvm: emulating the CPU (TCG)"
  attempts=(tcg:max)
fi
for a in "${attempts[@]}"; do
  case $a in
    kvm | tcg | kvm:?* | tcg:?*) ;;
    *)
      echo "vm: bad PROCTOR_VM_ACCEL entry \"$a\": give ACCEL[:CPU]... with ACCEL kvm or tcg (e.g. \"kvm:qemu64 tcg:max\")" >&2
      exit 2
      ;;
  esac
done
fetch_kernel
t0=$(date +%s)
build_initramfs
t_img=$(($(date +%s) - t0))

# A hang must fail, a loaded host must not: under TCG beside two CPU hogs
# the container suite ran past 240 s (89 s alone) and the VM past 435 s.
vm_timeout=${PROCTOR_VM_TIMEOUT:-1200}
suite_timeout=${PROCTOR_VM_SUITE_TIMEOUT:-600}
boot_timeout=${PROCTOR_VM_BOOT_TIMEOUT:-30}
nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')

# booted: the kernel ran /init, which marks the results port first thing.
booted() { grep -q -a "@@proctor-vm:$nonce " "$vmdir/results.log" 2>/dev/null; }

# run_qemu ACCEL CPU: one boot; qrc is qemu's status, and the function
# fails when the kernel never reached /init within boot_timeout seconds.
run_qemu() {
  local accel=$1 cpu=$2 pid waited=0
  rm -f "$vmdir/console.log" "$vmdir/results.log" "$vmdir/qemu.log"
  timeout -k 5 "$vm_timeout" qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
    -accel "$accel" -cpu "$cpu" -m 1024 -smp 2 \
    -kernel "$kernel" -initrd "$vmdir/initramfs.cpio" \
    -append "console=ttyS0 cgroup_no_v1=all panic=-1 quiet proctor.nonce=$nonce proctor.suite_timeout=$suite_timeout" \
    -serial "file:$vmdir/console.log" -serial "file:$vmdir/results.log" \
    </dev/null >"$vmdir/qemu.log" 2>&1 &
  pid=$!
  # Poll every half second until the kernel shows up or qemu is gone.
  while kill -0 "$pid" 2>/dev/null && ! booted; do
    if [ "$waited" -ge $((boot_timeout * 2)) ]; then
      kill "$pid" 2>/dev/null || :
      break
    fi
    sleep 0.5
    waited=$((waited + 1))
  done
  ! booted || say "chose ${accel^^} -cpu $cpu: the kernel reached /init after about $((waited / 2))s; running the suites"
  qrc=0
  wait "$pid" 2>/dev/null || qrc=$?
  booted
}

failures=()
ran=
for a in "${attempts[@]}"; do
  accel=${a%%:*}
  cpu=${a#*:}
  [ "$cpu" != "$a" ] || { [ "$accel" = kvm ] && cpu=host || cpu=max; }
  accel_name="${accel^^} -cpu $cpu"
  say "booting $(basename -- "$kernel") under $accel_name; initramfs $(($(stat -c %s "$vmdir/initramfs.cpio") >> 20)) MiB built in ${t_img}s; suites: ${suites[*]}"
  t0=$(date +%s)
  if run_qemu "$accel" "$cpu"; then
    ran=yes
    break
  fi
  elapsed=$(($(date +%s) - t0))
  if [ "$qrc" -eq 0 ] || [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ] || [ "$qrc" -eq 143 ]; then
    why="the kernel did not reach /init within ${boot_timeout}s"
  else
    why="qemu exited $qrc after ${elapsed}s: $(grep -a -v '^[[:space:]]*$' "$vmdir/qemu.log" | tail -n 2 | tr '\n' ' ')"
    why=${why% }
  fi
  say "no VM under $accel_name: $why"
  failures+=("$accel_name: $why")
done
if [ -z "$ran" ]; then
  reasons=$(printf '%s; ' "${failures[@]}")
  cannot_run "no way to run a VM on this machine (tried ${attempts[*]}; PROCTOR_VM_ACCEL chooses): ${reasons%; }"
fi
elapsed=$(($(date +%s) - t0))
case $qrc in
  0) say "the VM ran for ${elapsed}s under $accel_name" ;;
  124 | 137) say "the VM did not power off within ${vm_timeout}s: killed" ;;
  *) say "qemu exited $qrc after ${elapsed}s: $(tail -n 3 "$vmdir/qemu.log" | tr '\n' ' ')" ;;
esac

prc=0
[ -f "$vmdir/results.log" ] || : >"$vmdir/results.log"
parse_results "$vmdir/results.log" "$nonce" "${suites[@]}" || prc=$?
if [ "$prc" -ne 0 ] || [ "$qrc" -ne 0 ]; then
  grep -m 1 'Kernel panic' "$vmdir/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/# vm: /' || :
  echo "# vm: the last lines of the console ($vmdir/console.log):"
  tail -n 30 "$vmdir/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/#   /'
  exit 1
fi
