#!/bin/bash
# SPDX-License-Identifier: ISC
# judge0's IsolateJob command lines on proctor-isolate, outside CI: the
# compile, run and cleanup lines of app/jobs/isolate_job.rb (JUDGE0_SRC, a
# judge0 checkout; each option line below is first looked up there, so a
# line judge0 no longer passes fails the check) with judge0.conf's
# defaults, on its status cases, each verdict made as its verify and
# determine_status make it. proctor-isolate is `isolate` on the PATH.
#
#   JUDGE0_SRC=/path/to/judge0 PROCTOR_ISOLATE=build/src/proctor-isolate \
#       bash tests/compat/judge0-lines.sh      (as root)
set -u
job=${JUDGE0_SRC:-}/app/jobs/isolate_job.rb
if [ -z "${JUDGE0_SRC:-}" ] || [ ! -f "$job" ]; then
	echo "1..0 # SKIP set JUDGE0_SRC to a judge0 checkout (app/jobs/isolate_job.rb)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (judge0 runs isolate as root)"
	exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
ISO=$(realpath "${PROCTOR_ISOLATE:-$here/../../build/src/proctor-isolate}")
T=$(mktemp -d "${TMPDIR:-/tmp}/judge0-compat.XXXXXX")
chmod 0711 "$T"
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin" && ln -s "$ISO" "$T/bin/isolate"
export PATH="$T/bin:$PATH"
printf 'box_root = %s/boxes\nlock_root = %s/locks\nfirst_uid = 63000\nfirst_gid = 63000\nnum_boxes = 1000\n' \
	"$T" "$T" >"$T/isolate.conf"
export PROCTOR_ISOLATE_CONFIG=$T/isolate.conf
n=0 failed=0
check() { # WHAT WANT GOT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		printf 'not ok %d - %s\n# want: %s\n# got:  %s\n' "$n" "$1" "$2" "$3"
	fi
}
# The option lines as isolate_job.rb writes them (its Ruby interpolations
# verbatim): each must be in the checkout.
for line in '-M #{metadata_file} \' '--stderr-to-stdout \' '-i /dev/null \' \
	'-t #{Config::MAX_CPU_TIME_LIMIT} \' '-x 0 \' '-p#{Config::MAX_MAX_PROCESSES_AND_OR_THREADS} \' \
	'-t #{submission.cpu_time_limit} \' '-x #{submission.cpu_extra_time} \' \
	'-w #{submission.wall_time_limit} \' '-k #{submission.stack_limit} \' \
	'-p#{submission.max_processes_and_or_threads} \' '-f #{submission.max_file_size} \' \
	'-d /etc:noexec \' '-- /bin/bash $(basename #{run_script}) \' \
	'< #{stdin_file} > #{stdout_file} 2> #{stderr_file} \' \
	'#{submission.enable_per_process_and_thread_memory_limit ? "-m " : "--cg-mem="}#{submission.memory_limit} \' \
	'`isolate #{cgroups} -b #{box_id} --cleanup`'; do
	grep -qF -- "$line" "$job" || check "isolate_job.rb still has: $line" present missing
done
ENVS=(-E HOME=/tmp -E PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" -E LANG
	-E LANGUAGE -E LC_ALL -E JUDGE0_HOMEPAGE -E JUDGE0_SOURCE_CODE -E JUDGE0_MAINTAINER -E JUDGE0_VERSION)
# determine_status, and verify's exeerr: STATUS EXITSIG STDOUT EXPECTED MESSAGE
verdict() {
	case $1 in
	TO) echo "Time Limit Exceeded" ;;
	SG) echo "Runtime Error (SIG$(kill -l "$2"))" ;;
	RE) echo "Runtime Error (NZEC)" ;;
	XX) case $5 in
		execve\(*\):\ Exec\ format\ error | execve\(*\):\ No\ such\ file\ or\ directory | execve\(*\):\ Permission\ denied)
			echo "Exec Format Error" ;;
		*) echo "Internal Error" ;;
		esac ;;
	*) if [ "$(sed 's/[[:space:]]*$//' <<<"$3")" = "$(sed 's/[[:space:]]*$//' <<<"$4")" ]; then
		echo Accepted
	else
		echo "Wrong Answer"
	fi ;;
	esac
}
meta() { sed -n "s/^$2://p" "$1"; }
submit() { # ID SOURCE STDIN EXPECTED: perform, as IsolateJob does (C, GCC); prints the verdict
	local id=$1 W
	W=$(isolate --cg -b "$id" --init)
	for f in stdin.txt stdout.txt stderr.txt metadata.txt; do : >"$W/$f"; done
	printf '%s' "$2" >"$W/box/main.c"
	printf '%s' "$3" >"$W/stdin.txt"
	echo '/usr/bin/gcc  main.c' >"$W/box/compile.sh"
	: >"$W/compile_output.txt"
	isolate --cg -s -b "$id" -M "$W/metadata.txt" --stderr-to-stdout -i /dev/null -t 15.0 -x 0 \
		-w 20.0 -k 128000 -p120 --cg-timing --cg-mem=512000 -f 4096 "${ENVS[@]}" -d /etc:noexec \
		--run -- /bin/bash compile.sh >"$W/compile_output.txt"
	if [ $? != 0 ]; then
		echo "Compilation Error"
	else
		rm -f "$W/compile_output.txt" "$W/box/compile.sh" && : >"$W/metadata.txt"
		echo './a.out ' >"$W/box/run.sh"
		isolate --cg -s -b "$id" -M "$W/metadata.txt" -t 5.0 -x 1.0 -w 10.0 -k 64000 -p60 \
			--cg-timing --cg-mem=128000 -f 1024 "${ENVS[@]}" -d /etc:noexec --run -- /bin/bash run.sh \
			<"$W/stdin.txt" >"$W/stdout.txt" 2>"$W/stderr.txt"
		verdict "$(meta "$W/metadata.txt" status)" "$(meta "$W/metadata.txt" exitsig)" \
			"$(cat "$W/stdout.txt")" "$4" "$(meta "$W/metadata.txt" message)"
		printf '%s time %s s, cg-mem %s KiB\n' "$(meta "$W/metadata.txt" exitcode)" \
			"$(meta "$W/metadata.txt" time)" "$(meta "$W/metadata.txt" cg-mem)" >"$T/figures"
	fi
	rm -rf "${W:?}/box/"* "$W/tmp/"* "$W/stdin.txt" "$W/stdout.txt" "$W/stderr.txt" "$W/metadata.txt"
	isolate --cg -b "$id" --cleanup
	[ -e "$W" ] && echo "Cleanup of sandbox $id failed."
}
SUM='#include <stdio.h>
int main(void) { long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\n", a + b); return 0; }
'
case_() { # NAME WANT SOURCE [STDIN EXPECTED]
	local got
	got=$(submit $((100 + n)) "$3" "${4:-3 4}" "${5:-7}")
	check "judge0 $1: $2 ($(cat "$T/figures" 2>/dev/null))" "$2" "$got"
	rm -f "$T/figures"
}
case_ "a right answer" "Accepted" "$SUM"
case_ "a wrong answer" "Wrong Answer" "$SUM" "3 4" "8"
case_ "an endless loop (-t 5.0)" "Time Limit Exceeded" 'int main(void) { for (volatile long i = 0;; i++) ; }'
case_ "256 MiB touched (--cg-mem=128000)" "Runtime Error (SIGKILL)" '#include <stdlib.h>
int main(void) { size_t n = 256u << 20; char *p = malloc(n); for (size_t i = 0; p && i < n; i += 4096) p[i] = 1; return 0; }'
# Under run.sh's bash a crash is bash's exit 139: NZEC, as under isolate
# (isolate reports its main process; judge0's issue 443 shows the same).
case_ "SIGSEGV under bash" "Runtime Error (NZEC)" '#include <signal.h>
int main(void) { raise(SIGSEGV); return 0; }'
case_ "exit 3" "Runtime Error (NZEC)" 'int main(void) { return 3; }'
case_ "a source that does not compile" "Compilation Error" 'int main(void) { return x; }'
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
