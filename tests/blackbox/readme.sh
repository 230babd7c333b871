#!/bin/bash
# SPDX-License-Identifier: ISC
# The README's judge examples (batch, checker), run exactly as printed, with the build's proctor first on the PATH.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR (e.g. PROCTOR=build/src/proctor)}"
PROCTOR=$(realpath "$PROCTOR")
readme=${PROCTOR_README:-$(dirname "$0")/../../README.md}

# block NAME: the fenced code block that the line <!-- readme-test: NAME -->
# stands directly above, without its fences. Fails (with a line on stderr)
# unless there is exactly one, and it is closed.
block() {
	awk -v name="$1" '
		$0 == "<!-- readme-test: " name " -->" { marks++; want = 1; next }
		want == 1 { want = 0; if ($0 ~ /^```/) { inside = 1; blocks++ } else bad = "not directly followed by a fence"; next }
		inside && /^```$/ { inside = 0; closed++; next }
		inside { print }
		END {
			if (bad != "") { print "readme-test: " name ": " bad > "/dev/stderr"; exit 1 }
			if (marks != 1 || blocks != 1 || closed != 1) {
				print "readme-test: " name ": " marks + 0 " marks, " closed + 0 " closed blocks (want 1)" > "/dev/stderr"
				exit 1
			}
		}' "$readme"
}

# run NAME: extract block NAME to $T/NAME.sh and run it with bash in the
# scratch directory $T/work, the build's proctor and proctord first on the
# PATH; its stdout in $T/NAME.out, stderr in $T/NAME.err, status in RUN_RC.
run() {
	RUN_RC=extract
	: >"$T/$1.out"
	block "$1" >"$T/$1.sh" 2>"$T/$1.err" || return 1
	(cd "$T/work" && PATH="$(dirname "$PROCTOR"):$PATH" timeout $((T_OP * 12)) bash "$T/$1.sh") \
		>"$T/$1.out" 2>"$T/$1.err" </dev/null
	RUN_RC=$?
}

# shown NAME: what the block printed, for a failed check.
shown() { diag "block $1 exited $RUN_RC; stdout:" "$(<"$T/$1.out")" "stderr:" "$(tail -n 20 "$T/$1.err")"; }

for tool in g++ python3; do
	if ! command -v "$tool" >/dev/null; then
		skip "the README's judge examples" "no $tool (build-essential, python3)"
		done_testing
		exit
	fi
done
mkdir "$T/work"

# The batch run: compile two submissions (g++ under proctor run too), run
# each under limits, and print a verdict from proctor run's exit code.
run batch
check_eq "the batch example runs to its end" 0 "$RUN_RC" || shown batch
out=$(<"$T/batch.out")
check_re "the batch example says that sum ran, with proctor run's verdict line" \
	$'(^|\n)sum: ran; proctor: exited 0; cpu [0-9.]+ s, wall [0-9.]+ s, peak [0-9.]+ MiB(\n|$)' "$out" || shown batch
check_re "the batch example says that loop exceeded the time limit, killed by proctord" \
	$'(^|\n)loop: time limit exceeded; proctor: killed (cpu|wall)-time: ' "$out" || shown batch
check_eq "sum's output is the sum of its input" 5 "$(cat "$T/work/sum.out" 2>&1)"

# The checker run, in the same directory: sum again, then the checker on
# its output and the expected answer.
run checker
check_eq "the checker example runs to its end" 0 "$RUN_RC" || shown checker
check_eq "the checker example accepts sum's output" "sum: accepted" "$(<"$T/checker.out")" || shown checker

done_testing
