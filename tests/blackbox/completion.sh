#!/bin/bash
# SPDX-License-Identifier: ISC
# Bash completion of proctor and proctord: options from --help, profiles, sandbox directories.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR (e.g. PROCTOR=build/src/proctor)}"
PROCTOR=$(realpath "$PROCTOR")
script=$(realpath "$(dirname "$0")/../../contrib/completion/proctor.bash")

# comp WORDS...: complete the last word (in a fresh bash that sourced only
# the script), COMPREPLY sorted, one per line, in $REPLY_TEXT. The first
# word is proctor or proctord, run from the build tree.
comp() {
	REPLY_TEXT=$(cd "$T/empty" && BASH_COMPLETION_LOADED=${WITH_BC:-} bash -c '
		if [ -n "$BASH_COMPLETION_LOADED" ]; then
			. /usr/share/bash-completion/bash_completion || exit 1
		fi
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		case $1 in
		*proctord) _proctord ;;
		*) _proctor ;;
		esac
		printf "%s\n" "${COMPREPLY[@]}" | sort -u
	' _ "$script" "$@" 2>"$T/comp.err")
}
mkdir "$T/empty"

# Options: what --help lists, and nothing else.
help_opts=$("$PROCTORD" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u)
comp "$PROCTORD" --
check_eq "proctord --<TAB>: every option of proctord --help, and --" \
	"$(printf '%s\n' $help_opts -- | sort -u)" "$REPLY_TEXT"
check_re "...which are many (read from --help, not a list of its own)" '^[3-9][0-9]$' "$(wc -l <<<"$help_opts")"
comp "$PROCTORD" --cpu
check_eq "proctord --cpu<TAB>" $'--cpu-time\n--cpus\n--cpuset' "$REPLY_TEXT"
comp "$PROCTORD" --cpu-time 1s --wall
check_eq "an option's value is skipped: --cpu-time 1s --wall<TAB>" "--wall-time" "$REPLY_TEXT"
comp "$PROCTORD" --cgroup ""
check_eq "--cgroup <TAB>: the modes" $'auto\nnone\nv1\nv2' "$REPLY_TEXT"
comp "$PROCTORD" --cpu-time ""
check_eq "--cpu-time <TAB>: nothing (a duration)" "" "$REPLY_TEXT"

# Profiles: the [sections] of the --config file on the line.
printf 'grace = 1s\n[alpha]\ncpu_time = 1s\n[beta]\ninherit = alpha\n [gamma] \n' >"$T/p.conf"
comp "$PROCTORD" --config "$T/p.conf" --profile ""
check_eq "--config FILE --profile <TAB>: the file's profiles" $'alpha\nbeta\ngamma' "$REPLY_TEXT"
comp "$PROCTORD" --config "$T/p.conf" --wall-time 2s --profile b
check_eq "--profile b<TAB>" "beta" "$REPLY_TEXT"
comp "$PROCTORD" --config="$T/p.conf" --profile = a
check_eq "--config=FILE --profile=a<TAB>" "alpha" "$REPLY_TEXT"
comp "$PROCTORD" --profile ""
check_eq "--profile <TAB> without --config: nothing" "" "$REPLY_TEXT"
comp "$PROCTOR" run --json "$T/v.json" --config "$T/p.conf" --profile ""
check_eq "proctor run --config FILE --profile <TAB>" $'alpha\nbeta\ngamma' "$REPLY_TEXT"

# The program: a command after the options, or after --.
comp "$PROCTORD" --cpu-time 1s ech
check_re "proctord OPTIONS ech<TAB>: commands" '(^|\n)echo($|\n)' "$REPLY_TEXT"
comp "$PROCTORD" -- --wall
check_eq "after --, no option of proctord's" "" "$REPLY_TEXT"

# proctor: its commands and their options, from proctor --help.
comp "$PROCTOR" ""
check_eq "proctor <TAB>: the commands of proctor --help" $'--help\n--version\nrun\nstop\nwait\nwatch' "$REPLY_TEXT"
comp "$PROCTOR" wait --
check_eq "proctor wait --<TAB>" $'--json\n--timeout' "$REPLY_TEXT"
comp "$PROCTOR" watch --
check_eq "proctor watch --<TAB>" "--interval" "$REPLY_TEXT"
comp "$PROCTOR" run --wall
check_eq "proctor run --wall<TAB>: proctord's options" "--wall-time" "$REPLY_TEXT"
comp "$PROCTOR" run --js
check_eq "proctor run --js<TAB>: run's own" $'--json\n--json-fd' "$REPLY_TEXT"

# Sandbox directories: those with a wait FIFO, from proctord's default place
# ($XDG_RUNTIME_DIR, set by lib.sh) or from the path being typed.
pd_start -- sleep 60
box=$PD_DIR
mkdir "$XDG_RUNTIME_DIR/proctor.notabox" "$T/mine"
pd_start --dir "$T/mine/box" -- sleep 60
comp "$PROCTOR" wait ""
check "proctor wait <TAB>: the sandbox in \$XDG_RUNTIME_DIR" grep -qxF "$box" <<<"$REPLY_TEXT"
check "...and not a directory without a wait FIFO" eval '! grep -qxF "$XDG_RUNTIME_DIR/proctor.notabox" <<<"$REPLY_TEXT"'
comp "$PROCTOR" stop "$XDG_RUNTIME_DIR/proctor."
check_eq "proctor stop \$XDG_RUNTIME_DIR/proctor.<TAB>: the sandbox only" "$box" "$REPLY_TEXT"
comp "$PROCTOR" watch --interval 1 "$T/mine/"
check_eq "proctor watch DIR/<TAB>: a sandbox at a path of one's own" "$T/mine/box" "$REPLY_TEXT"
comp "$PROCTOR" wait "$T/mi"
check_eq "a directory with no sandbox in it: offered, to go further down" "$T/mine" "$REPLY_TEXT"
wait0 "$box"
wait0 "$T/mine/box"

# With bash-completion loaded, the program's own completion takes over.
if [ -r /usr/share/bash-completion/bash_completion ]; then
	WITH_BC=1 comp "$PROCTORD" --cpu-time 1s -- ls "$T/mi"
	check_eq "with bash-completion: proctord -- ls ARG<TAB> completes ls's argument" "$T/mine" "$REPLY_TEXT" ||
		diag "$(<"$T/comp.err")"
	WITH_BC=1 comp "$PROCTOR" run --cg
	check_eq "with bash-completion: proctor run --cg<TAB>" "--cgroup" "$REPLY_TEXT"
else
	skip "with bash-completion loaded" "no /usr/share/bash-completion/bash_completion (apt-get install bash-completion)"
fi

# Installed where bash-completion finds it: one file per command, since it
# loads a command's completion from the file named after the command.
build=$(dirname "$(dirname "$(realpath "${PROCTORD_REAL:-$PROCTORD}")")")
if [ ! -r "$build/meson-info/intro-install_plan.json" ] || ! command -v meson >/dev/null; then
	skip "meson installs the completion" "not run from a meson build tree"
elif [ ! -w "$build/meson-logs" ]; then
	skip "meson installs the completion" "meson install logs into $build/meson-logs, not writable here"
else
	meson install -C "$build" --no-rebuild --destdir "$T/inst" --tags bash-completion \
		>"$T/install.out" 2>&1
	check_eq "meson install --tags bash-completion succeeds" 0 "$?" || diag "$(<"$T/install.out")"
	installed=$(cd "$T/inst" && find . -type f | sort)
	check_re "...and installs proctor and proctord in a bash-completion/completions directory" \
		$'^\./.*/bash-completion/completions/proctor\n\./.*/bash-completion/completions/proctord$' \
		"$installed"
	check "...the same script" cmp -s "$script" "$T/inst/$(head -n 1 <<<"$installed")"
fi

done_testing
