#!/usr/bin/env bash
# Inside a D-Bus session set up by with_session (lib.sh): waits until gnome-keyring's Secret
# Service really answers, then runs "$@", then stops the daemons of this session.
#
# The session's bus starts the daemon itself, on the first call, unlocked and on this
# session's keyring (scripts/keyring-daemon.sh), and again after a crash: gnome-keyring-daemon
# has been seen to abort mid-run under the suite's load. Starting it here as well raced with
# that activation ("Message recipient disconnected from message bus without replying"), so
# this script only asks: the tests start once a probe item was stored, read back and cleared.
set -uo pipefail

wait_s=${SWITCHYARD_KEYRING_WAIT_S:-60}

probe_roundtrip() {
  local value="probe-$$-$RANDOM"
  printf '%s' "$value" | timeout 10 secret-tool store --label=switchyard-probe switchyard-probe "$$" \
    >/dev/null 2>&1 || return 1
  [ "$(timeout 10 secret-tool lookup switchyard-probe "$$" 2>/dev/null)" = "$value" ] || return 1
  timeout 10 secret-tool clear switchyard-probe "$$" >/dev/null 2>&1 || return 1
  [ -z "$(timeout 10 secret-tool lookup switchyard-probe "$$" 2>/dev/null)" ]
}

ready=""
deadline=$((SECONDS + wait_s))
while [ "$SECONDS" -lt "$deadline" ]; do
  if probe_roundtrip; then
    ready=1
    break
  fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  echo "session-keyring: gnome-keyring's Secret Service never answered on this D-Bus session" \
    "within ${wait_s}s; is gnome-keyring installed (apt-get install gnome-keyring" \
    "libsecret-tools)?" >&2
  exit 70
fi

# Every gnome-keyring-daemon of this session: started here (they carry this keyring folder)
# or activated by this session's bus (they carry its address).
session_daemons() {
  local pid env
  # The kernel keeps 15 characters of a process name.
  for pid in $(pgrep -x gnome-keyring-d 2>/dev/null); do
    env="$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ")" || continue
    if grep -qxF "XDG_DATA_HOME=${XDG_DATA_HOME:-}" <<<"$env" \
      || grep -qxF "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS" <<<"$env" \
      || grep -qxF "DBUS_STARTER_ADDRESS=$DBUS_SESSION_BUS_ADDRESS" <<<"$env"; then
      echo "$pid"
    fi
  done
}

# Not exec: once the command ends, the daemons of this session go too (they would otherwise
# outlive it, reparented to init, one set per run).
rc=0
"$@" || rc=$?
for pid in $(session_daemons); do
  kill "$pid" 2>/dev/null
done
exit "$rc"
