#!/usr/bin/env bash
# Inside a D-Bus session (dbus-run-session): starts gnome-keyring's Secret Service, waits until
# it really answers, then runs "$@".
#
# Why the wait: on a machine where gnome-keyring never ran, the daemon can still be starting
# when the first test calls org.freedesktop.secrets; D-Bus then activates a second daemon from
# its service file and the call fails with "Message recipient disconnected from message bus
# without replying". So the tests start only after the name has an owner and a probe item was
# stored, read back and cleared through that owner.
set -uo pipefail

attempts=${SWITCHYARD_KEYRING_ATTEMPTS:-5}
wait_s=${SWITCHYARD_KEYRING_WAIT_S:-10}
password=test

name_has_owner() {
  dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true
}

probe_roundtrip() {
  local value="probe-$$-$RANDOM"
  printf '%s' "$value" | timeout 10 secret-tool store --label=switchyard-probe switchyard-probe "$$" \
    >/dev/null 2>&1 || return 1
  [ "$(timeout 10 secret-tool lookup switchyard-probe "$$" 2>/dev/null)" = "$value" ] || return 1
  timeout 10 secret-tool clear switchyard-probe "$$" >/dev/null 2>&1 || return 1
  [ -z "$(timeout 10 secret-tool lookup switchyard-probe "$$" 2>/dev/null)" ]
}

ready=""
for attempt in $(seq 1 "$attempts"); do
  # --unlock reads the password on stdin and creates the login keyring when there is none.
  printf '%s' "$password" | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1
  deadline=$((SECONDS + wait_s))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if name_has_owner && probe_roundtrip; then
      ready=1
      break
    fi
    sleep 0.2
  done
  [ -n "$ready" ] && break
  echo "session-keyring: the Secret Service did not answer (attempt $attempt of $attempts); restarting gnome-keyring" >&2
done

if [ -z "$ready" ]; then
  echo "session-keyring: gnome-keyring's Secret Service never answered on this D-Bus session" \
    "after $attempts attempts of ${wait_s}s; is gnome-keyring installed (apt-get install" \
    "gnome-keyring libsecret-tools)?" >&2
  exit 70
fi
# gnome-keyring-daemon has been seen to abort mid-run (a fatal GLib error, "trap int3" in the
# kernel log) under the suite's load. D-Bus then activates a fresh daemon whose login keyring
# is locked, and every later keychain call fails with "Locked". A watchdog brings back an
# unlocked daemon (the keyring file survives the crash) and says so on stderr; a call caught
# in the moment of the crash still fails, as it would for a user.
secrets_pid() {
  dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null \
    | awk '{print $2}'
}
tests_pid=$$
(
  daemon="$(secrets_pid)"
  while kill -0 "$tests_pid" 2>/dev/null; do
    sleep 0.3
    if [ -n "$daemon" ] && ! kill -0 "$daemon" 2>/dev/null; then
      echo "session-keyring: gnome-keyring-daemon (pid $daemon) died; starting it again, unlocked" >&2
      for _ in $(seq 1 10); do
        # A call in the meantime has D-Bus start a daemon of its own, locked and outside this
        # keyring directory: it goes, so the unlocked one can own the name.
        activated="$(secrets_pid)"
        [ -n "$activated" ] && kill "$activated" 2>/dev/null && sleep 0.2
        printf '%s' "$password" | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1
        sleep 0.3
        probe_roundtrip && break
      done
      daemon="$(secrets_pid)"
    fi
  done
) &
watchdog=$!

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

# Not exec: once the command ends, the watchdog and the daemons of this session go too (they
# would otherwise outlive it, reparented to init, one set per run).
rc=0
"$@" || rc=$?
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
for pid in $(session_daemons); do
  kill "$pid" 2>/dev/null
done
exit "$rc"
