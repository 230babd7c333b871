#!/bin/bash
# SPDX-License-Identifier: ISC
# A box's DIR lent to the program's uid (--user nobody, or the box's uid 0) for the run and handed back at the end, whatever the program did to it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/box-lib.sh"

nb=$(id -u nobody)
ngname=$(getent group "$ng" | cut -d: -f1)
mkdir -p "$T/tmp"

# own_new MODE: a fresh DIR of root's, as an operator's mkdir makes it.
own_new() {
	BOX="$T/tmp/own.$((++bx_seq))"
	mkdir -m "$1" "$BOX"
}
# owner PATH: "USER:GROUP MODE" as stat prints them, no link followed.
owner() { stat -c '%U:%G %a' "$1" 2>&1; }

# --- a DIR of root's, 0755: --user nobody writes it, and root has it back -----

own_new 0755
bx_run "$T/tmp/o.w" --user nobody -- sh -c 'stat -c "%u %a" /box; echo out >/box/out && echo written'
check_eq "--user nobody: DIR (root's, 0755) is nobody's during the run, and written" \
	"$nb 755;written;" "$(tr '\n' ';' <"$T/tmp/o.w")" || { ans_diag; diag "$(<"$T/tmp/o.w.err")"; }
check_eq "...the program ended normally" "exited 0" "$ANS_STATUS" || ans_diag
check_eq "...DIR is root's again, 0755, once the final answer has come" "root:root 755" "$(owner "$BOX")"
check_eq "...what the program made stays nobody's" "nobody:$ngname 644" "$(owner "$BOX/out")"

# The box's uid 0 is the host's nobody: it gets DIR the same way.
own_new 0750
bx_run "$T/tmp/o.r" -- sh -c 'echo out >/box/out && echo written'
check_eq "no --user (the box's uid 0, nobody on the host): DIR (root's, 0750) is written" \
	"written" "$(<"$T/tmp/o.r")" || { ans_diag; diag "$(<"$T/tmp/o.r.err")"; }
check_eq "...and is root's again, 0750" "root:root 750" "$(owner "$BOX")"

# --- a DIR its owner may not write stays as it is ---------------------------------

own_new 0555
bx_run "$T/tmp/o.ro" --user nobody -- sh -c 'stat -c "%u" /box; echo x >/box/x && echo written'
check_eq "a DIR without u+w (0555) is not lent: the program cannot write it" \
	"0" "$(<"$T/tmp/o.ro")" || diag "$(<"$T/tmp/o.ro.err")"
check_eq "...and it stays root's, 0555" "root:root 555" "$(owner "$BOX")"

# A DIR nobody owns already (as an operator chowned it by hand) is left alone.
own_new 0700
chown nobody:"$ng" "$BOX"
bx_run "$T/tmp/o.nb" --user nobody -- sh -c 'echo x >/box/x && echo written'
check_eq "a DIR nobody owns already is written" "written" "$(<"$T/tmp/o.nb")"
check_eq "...and stays nobody's" "nobody:$ngname 700" "$(owner "$BOX")"

# --- a DIR that is not its owner's alone is not lent ------------------------------
# The owner of a directory may remove or replace any entry in it, sticky or
# not: lent, a shared DIR (group-writable, sticky like /tmp, or with an
# access ACL) would put others' files at the program's mercy.

own_new 0775
bx_run "$T/tmp/o.g" --user nobody -- sh -c 'stat -c "%u" /box'
check_eq "a group-writable DIR (0775) is not lent" "0" "$(<"$T/tmp/o.g")" ||
	diag "$(<"$T/tmp/o.g.err")"
check_eq "...and stays root's, 0775" "root:root 775" "$(owner "$BOX")"

own_new 1755
bx_run "$T/tmp/o.s" --user nobody -- sh -c 'stat -c "%u" /box'
check_eq "a sticky DIR (1755) is not lent" "0" "$(<"$T/tmp/o.s")" ||
	diag "$(<"$T/tmp/o.s.err")"

if command -v setfacl >/dev/null && own_new 0755 && setfacl -m u:daemon:rwx "$BOX" 2>/dev/null; then
	bx_run "$T/tmp/o.acl" --user nobody -- sh -c 'stat -c "%u" /box'
	check_eq "a DIR with an access ACL is not lent" "0" "$(<"$T/tmp/o.acl")" ||
		diag "$(<"$T/tmp/o.acl.err")"
else
	skip "a DIR with an access ACL" "no setfacl, or no ACLs on this file system"
fi

# A --report in DIR: its owner for the run could move the report's
# directory away and leave a forged one in its place. Not lent, and said.
own_new 0755
mkdir "$BOX/rep"
bx_run "$T/tmp/o.rep" --user nobody --report "$BOX/rep/r.json" -- sh -c 'stat -c "%u" /box'
check_eq "a DIR that holds the --report is not lent" "0" "$(<"$T/tmp/o.rep")" ||
	diag "$(<"$T/tmp/o.rep.err")"
check_re "...and proctord says why" "DIR is not lent to uid $nb: --report lies in it" \
	"$(cat "$PD_ERR" 2>&1)"
check "...the report is where it was asked for" test -s "$BOX/rep/r.json"

# --- a hostile program ------------------------------------------------------------
# As DIR's owner for the run, it changes DIR's mode (world-writable and
# sticky; a set-group-ID bit the box's filter refuses), grants itself write access by an ACL, plants a symbolic link to a
# host file, a hard link to a file of root's in DIR, and a subdirectory
# no one may enter. The hand-back follows none of them and undoes the rest.

own_new 0755
echo "root's secret" >"$T/tmp/secret"
chmod 0600 "$T/tmp/secret"
echo "the judge's input" >"$BOX/input"
chmod 0666 "$BOX/input"
secret_before=$(owner "$T/tmp/secret")
bx_run "$T/tmp/o.h" --user nobody -- sh -c '
	cd /box || exit 1
	ln -s '"$T/tmp/secret"' evil && echo symlink
	ln input hard && echo hardlink
	mkdir -m 0 locked && echo subdir
	chmod 1777 /box && echo chmod
	python3 -c "
import os, struct
# A POSIX ACL (version 2): user::rwx, user:nobody:rwx, group::r-x, mask::rwx, other::r-x.
e = [(1, 7, 0xffffffff), (2, 7, os.getuid()), (4, 5, 0xffffffff), (0x10, 7, 0xffffffff),
     (0x20, 5, 0xffffffff)]
acl = struct.pack(\"<I\", 2) + b\"\".join(struct.pack(\"<HHI\", *x) for x in e)
try:
    os.setxattr(\"/box\", \"system.posix_acl_access\", acl)
    print(\"acl\")
except OSError as err:
    print(\"acl:\", err.strerror)
" 2>&1'
got=$(tr '\n' ';' <"$T/tmp/o.h")
check_eq "a hostile --user nobody program: symlink, hard link, locked subdirectory, chmod 1777" \
	"symlink;hardlink;subdir;chmod;" "${got%%acl*}" || { ans_diag; diag "$(<"$T/tmp/o.h.err")"; }
check_eq "...DIR is root's again, 0755: not sticky, no world write" "root:root 755" \
	"$(owner "$BOX")"
check_eq "...the host file its link points to is untouched" "$secret_before" \
	"$(owner "$T/tmp/secret")"
check_eq "...the link itself stays nobody's, not followed" "nobody" "$(stat -c %U "$BOX/evil")"
check_eq "...the file of root's it hard-linked is root's still, 0666" "root:root 666 2" \
	"$(stat -c '%U:%G %a %h' "$BOX/input")"
check_eq "...its locked subdirectory stays its own (nobody's, 0)" "nobody 0" \
	"$(stat -c '%U %a' "$BOX/locked")"
case $got in
*"acl;"*)
	acl=$(python3 -c 'import os, sys
try:
    os.getxattr(sys.argv[1], "system.posix_acl_access"); print("an ACL")
except OSError as e:
    print(e.strerror)' "$BOX")
	check_eq "...and the ACL it set on DIR is gone" "No data available" "$acl"
	;;
*)
	skip "...and the ACL it set on DIR is gone" "no ACL could be set here (${got#*acl})"
	;;
esac

# The hand-back comes with the end, also when the start fails after the
# lending: a program that cannot be run leaves DIR as it was.
own_new 0755
bx_run "$T/tmp/o.f" --user nobody -- /box/no-such-program
check_re "a program that cannot start: the run fails" '^failed ' "$ANS_HEAD" || ans_diag
check_eq "...and DIR is root's, 0755" "root:root 755" "$(owner "$BOX")"

done_testing
