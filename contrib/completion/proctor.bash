# SPDX-License-Identifier: ISC
# Bash completion for proctor(1) and proctord(8): options, profiles, sandbox directories.
#
# The options are read from the programs' own --help when completing, so
# that this file never lists them: --help is the one list to maintain. An
# option is a help line "  --name ARG  text" (ARG in capitals when it takes
# one) or a usage word "[--name ARG]". The profiles are the [sections] of the
# file given with --config; the sandboxes are directories that hold a "wait"
# FIFO. Works without the bash-completion package; uses its _command_offset
# for the program's own arguments when it is loaded.

# _proctor_parse_help: "OPTION ARG" lines (ARG empty for a flag) from --help
# text on stdin.
_proctor_parse_help()
{
    local line rest re_line='^  (-[[:alnum:]], )?(--[[:alnum:]][[:alnum:]-]*)( ([A-Z][A-Z=]*))?' \
        re_usage='\[(--[[:alnum:]][[:alnum:]-]*)( ([A-Z][A-Z=]*))?\]'
    while IFS= read -r line; do
        if [[ $line =~ $re_line ]]; then
            printf '%s %s\n' "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]}"
            continue
        fi
        rest=$line
        while [[ $rest =~ $re_usage ]]; do
            printf '%s %s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
            rest=${rest#*"${BASH_REMATCH[0]}"}
        done
    done
}

# _proctor_read_options: the options of --help text on stdin, into the
# arrays _proctor_opts (all) and _proctor_argopts (those taking a value).
_proctor_read_options()
{
    local opt arg
    _proctor_opts=() _proctor_argopts=()
    while read -r opt arg; do
        [[ " ${_proctor_opts[*]} " == *" $opt "* ]] && continue
        _proctor_opts+=("$opt")
        [[ -z $arg ]] || _proctor_argopts+=("$opt")
    done < <(_proctor_parse_help)
}

# _proctor_options COMMAND...: the options of COMMAND --help, if it exits 0.
_proctor_options()
{
    local help
    help=$("$@" --help 2>/dev/null) || help=
    _proctor_read_options <<<"$help"
}

_proctor_takes_arg()
{
    local o
    for o in "${_proctor_argopts[@]}"; do
        [[ $o == "$1" ]] && return 0
    done
    return 1
}

# _proctor_profiles WORDS...: the [sections] of the --config file named in WORDS.
_proctor_profiles()
{
    local file='' line i words=("$@") re='^[[:space:]]*\[([^];]+)\]'
    for ((i = 0; i < ${#words[@]}; i++)); do
        case ${words[i]} in
            --config=*) file=${words[i]#--config=} ;;
            --config)
                if [[ ${words[i + 1]-} == = ]]; then
                    file=${words[i + 2]-}
                else
                    file=${words[i + 1]-}
                fi
                ;;
        esac
    done
    # A tilde the shell left as it is (it expands only at a word's start).
    # shellcheck disable=SC2088
    [[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
    [[ -n $file && -r $file ]] || return 0
    while IFS= read -r line; do
        [[ $line =~ $re ]] && printf '%s\n' "${BASH_REMATCH[1]}"
    done <"$file" | sort -u
}

# _proctor_sandboxes CUR: sandbox directories (with a wait FIFO) that start
# with CUR: proctord's own (under $XDG_RUNTIME_DIR, /tmp and $TMPDIR, as
# proctor run makes them) and those among the directories CUR names; when
# CUR names no sandbox, its directories, to go further down.
_proctor_sandboxes()
{
    local cur=$1 d base
    local -a found=() dirs=()
    for base in "${XDG_RUNTIME_DIR-}" /tmp "${TMPDIR-}"; do
        [[ -n $base ]] || continue
        for d in "${base%/}"/proctor.* "${base%/}"/proctor-run.*; do
            [[ -p $d/wait && $d == "$cur"* ]] && found+=("$d")
        done
    done
    while IFS= read -r d; do
        dirs+=("$d")
        [[ -p $d/wait ]] && found+=("$d")
    done < <(compgen -d -- "$cur")
    if ((${#found[@]})); then
        printf '%s\n' "${found[@]}" | sort -u
    else
        printf '%s\n' "${dirs[@]}"
    fi
}

# _proctor_value OPTION CUR WORDS...: complete the value of OPTION.
_proctor_value()
{
    local opt=$1 cur=$2
    shift 2
    case $opt in
        --profile) mapfile -t COMPREPLY < <(compgen -W "$(_proctor_profiles "$@")" -- "$cur") ;;
        --cgroup) mapfile -t COMPREPLY < <(compgen -W "auto v2 v1 none" -- "$cur") ;;
        --user) mapfile -t COMPREPLY < <(compgen -u -- "$cur") ;;
        --group) mapfile -t COMPREPLY < <(compgen -g -- "$cur") ;;
        --dir | --chdir)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            ;;
        --config | --stdin | --stdout | --stderr | --report)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            ;;
        *) COMPREPLY=() ;; # a duration, a size, a number: nothing to offer
    esac
}

# _proctor_daemon_args FIRST: complete proctord's arguments, which start at
# COMP_WORDS[FIRST] (1 for proctord, 2 for proctor run); _proctor_opts and
# _proctor_argopts hold the options.
_proctor_daemon_args()
{
    local i=$1 cword=$COMP_CWORD prog=-1 w
    local cur=${COMP_WORDS[cword]} prev=${COMP_WORDS[cword - 1]-}
    # "--profile=c" is three words: "--profile", "=", "c".
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[cword - 2]}
    fi
    # Where the program starts: after "--", or at the first word that is
    # neither an option nor an option's value.
    while ((i < cword)); do
        w=${COMP_WORDS[i]}
        if [[ $w == -- ]]; then
            prog=$((i + 1))
            break
        elif [[ $w == -* ]]; then
            ((i++))
            if _proctor_takes_arg "$w"; then
                [[ ${COMP_WORDS[i]-} == = ]] && ((i++))
                ((i++))
            fi
        else
            prog=$i
            break
        fi
    done
    if ((prog < 0 && i > cword)); then
        _proctor_value "$prev" "$cur" "${COMP_WORDS[@]:0:cword}"
        return 0
    elif ((prog < 0)) && [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${_proctor_opts[*]} --" -- "$cur")
        return 0
    fi
    ((prog >= 0)) || prog=$cword
    # The program, then its own arguments.
    if declare -F _command_offset >/dev/null; then
        _command_offset "$prog"
    elif ((prog == cword)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
    else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

# The proctord that proctor run would start: $PROCTORD, else the one next to
# proctor, else the one on the PATH.
_proctor_proctord()
{
    local p
    if [[ -n ${PROCTORD-} ]]; then
        printf '%s\n' "$PROCTORD"
        return
    fi
    p=$(type -P -- "$1" 2>/dev/null)
    if [[ -n $p && -x ${p%/*}/proctord ]]; then
        printf '%s\n' "${p%/*}/proctord"
    else
        printf 'proctord\n'
    fi
}

_proctord()
{
    local _proctor_opts _proctor_argopts
    COMPREPLY=()
    _proctor_options "${COMP_WORDS[0]}"
    _proctor_daemon_args 1
}

_proctor()
{
    local cmd=${COMP_WORDS[0]} sub=${COMP_WORDS[1]-} cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]} help cmds
    local _proctor_opts _proctor_argopts
    COMPREPLY=()
    help=$("$cmd" --help 2>/dev/null)
    if ((COMP_CWORD == 1)); then
        # The usage lines: "Usage: proctor wait ...", "       proctor stop ...".
        cmds=$(sed -n 's/^\(Usage:\)\{0,1\} *proctor \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p' <<<"$help")
        mapfile -t COMPREPLY < <(compgen -W "$cmds --help --version" -- "$cur")
        return 0
    fi
    # The command's options: its own --help, else its usage line.
    _proctor_options "$cmd" "$sub"
    if ((${#_proctor_opts[@]} == 0)); then
        _proctor_read_options < <(grep -F "proctor $sub " <<<"$help")
    fi
    if [[ $sub == run ]]; then
        local run_opts=("${_proctor_opts[@]}") run_argopts=("${_proctor_argopts[@]}")
        _proctor_options "$(_proctor_proctord "$cmd")"
        _proctor_opts+=("${run_opts[@]}")
        _proctor_argopts+=("${run_argopts[@]}")
        _proctor_daemon_args 2
        return 0
    fi
    if [[ $prev != -* ]] || ! _proctor_takes_arg "$prev"; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "${_proctor_opts[*]}" -- "$cur")
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(_proctor_sandboxes "$cur")
        fi
    fi
    return 0
}

complete -F _proctor proctor
complete -F _proctord proctord
