#!/bin/bash
# SPDX-License-Identifier: ISC
# systemd: READY=1 on $NOTIFY_SOCKET once the FIFOs exist (Type=notify), and a valid template unit.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# listen SOCKET: receive one datagram on SOCKET ("@name": abstract), check that
# the sandbox directory $2 holds its FIFOs at that moment, print what came.
listen() {
	timeout "$T_OP" python3 - "$1" "$2" <<'PY'
import os, socket, stat, sys
path, box = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + path[1:] if path.startswith("@") else path)
open(box + ".listening", "w").close()
msg = s.recv(4096).decode()
fifos = all(stat.S_ISFIFO(os.stat(os.path.join(box, n)).st_mode) for n in ("wait", "status"))
print(msg.strip().replace("\n", " ") + (" fifos" if fifos else " no-fifos"))
PY
}

if ! command -v python3 >/dev/null; then
	skip "sd_notify" "no python3 to listen on the socket"
else
	for sock in "$T/notify" "@proctor-test-$$"; do
		box="$T/box${#sock}"
		listen "$sock" "$box" >"$T/got" 2>"$T/listen.err" &
		lpid=$!
		wait_for "$T_OP" test -e "$box.listening"
		NOTIFY_SOCKET=$sock pd_start_fg --dir "$box" -- sh -c 'env > "$0"; exec sleep 100' "$T/env"
		wait "$lpid"
		check_eq "READY=1 arrives on $sock once the FIFOs exist" "READY=1 fifos" "$(<"$T/got")" ||
			diag "$(<"$T/listen.err")"
		wait_for "$T_OP" test -s "$T/env"
		check "...and NOTIFY_SOCKET is not in the program's environment" \
			bash -c '! grep -q "^NOTIFY_SOCKET=" "$0"' "$T/env"
		wait0 "$box"
		pd_reap "$PD_PID"
		check_eq "...proctord ends normally" 0 "$PD_EXIT"
		rm -f "$T/env"
	done
fi

unit="$(dirname "$PROCTORD")/../systemd/proctor@.service"
if ! command -v systemd-analyze >/dev/null; then
	skip "the template unit is valid" "no systemd-analyze here"
elif [ ! -f "$unit" ]; then
	skip "the template unit is valid" "no $unit in this build"
else
	# The unit names the installed proctord; check it against this one.
	mkdir "$T/units"
	sed "s|^ExecStart=[^ ]*/proctord|ExecStart=$PROCTORD|" "$unit" >"$T/units/proctor@test.service"
	out=$(systemd-analyze verify --man=no "$T/units/proctor@test.service" 2>&1)
	check_eq "systemd-analyze verify finds nothing to say of proctor@.service" "0:" "$?:$out"
	check_re "...it is Type=notify" \
		"Type=notify" "$(grep -E '^(Type|Delegate)=' "$unit" | tr '\n' ' ')"
	check_re "...and Delegate=yes" "Delegate=yes" "$(<"$unit")"
fi

done_testing
