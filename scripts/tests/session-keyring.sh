#!/usr/bin/env bash
# Regression tests for the test command's keychain session (issue: on a fresh machine the first
# keychain tests ran against a half-started gnome-keyring and failed).
# 1. The command inside `with_session` can use the Secret Service on its very first call, in
#    several fresh sessions in a row (each with a keyring directory that never existed).
# 2. Without a working gnome-keyring the helper fails with a clear message and never runs the
#    command.
# 3. A daemon that dies mid-run is started again (by the session's bus), unlocked, keeping
#    what was stored.
# 4. Once the command ends, no gnome-keyring-daemon of its session is left running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"

first_call='v="first-$$"; printf %s "$v" | secret-tool store --label=t switchyard-test first \
  && [ "$(secret-tool lookup switchyard-test first)" = "$v" ]'
for round in 1 2 3; do
  if ! with_session sh -c "$first_call"; then
    echo "FAIL: round $round: the first Secret Service call inside with_session failed" >&2
    exit 1
  fi
done

fake_bin="$(mktemp -d)"
trap 'rm -rf "$fake_bin"' EXIT
# A gnome-keyring-daemon that starts nothing: the helper must give up, not run the command.
printf '#!/bin/sh\nexit 0\n' >"$fake_bin/gnome-keyring-daemon"
chmod +x "$fake_bin/gnome-keyring-daemon"
marker="$fake_bin/ran"
set +e
out="$(PATH="$fake_bin:$PATH" SWITCHYARD_KEYRING_WAIT_S=2 \
  with_session sh -c "touch '$marker'" 2>&1)"
rc=$?
set -e
if [ "$rc" -ne 70 ] || [ -e "$marker" ] || ! grep -q "never answered" <<<"$out"; then
  echo "FAIL: a keyring that never answers must stop the run with exit 70 and a message" \
    "(rc=$rc, ran=$([ -e "$marker" ] && echo yes || echo no), output: $out)" >&2
  exit 1
fi
# 3. A gnome-keyring-daemon that dies mid-run is brought back unlocked, with what it stored.
crash='v="kept-$$"; printf %s "$v" | secret-tool store --label=t switchyard-test crash || exit 2
  pid=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk "{print \$2}")
  kill -9 "$pid" || exit 3
  for i in $(seq 1 40); do
    sleep 0.25
    [ "$(timeout 5 secret-tool lookup switchyard-test crash 2>/dev/null)" = "$v" ] && exit 0
  done
  exit 4'
set +e
out="$(with_session sh -c "$crash" 2>&1)"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "FAIL: after gnome-keyring-daemon died, the keychain did not come back unlocked with its" \
    "items (rc=$rc, output: $out)" >&2
  exit 1
fi
# 4. Nothing of a session outlives it: not the daemon started for it, not the one started
#    again after a crash, not one the bus activated.
# pgrep (procps) finds them; without it the check below would find nothing and pass.
command -v pgrep >/dev/null || { echo "FAIL: pgrep (procps) is missing" >&2; exit 1; }
left_of() {
  local address="$1" pid
  for pid in $(pgrep -x gnome-keyring-d); do
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF -e "DBUS_SESSION_BUS_ADDRESS=$address" \
      -e "DBUS_STARTER_ADDRESS=$address" && echo "$pid"
  done
  return 0
}
seen="$fake_bin/address"
with_session sh -c "echo \"\$DBUS_SESSION_BUS_ADDRESS\" >'$seen'; $crash" >/dev/null 2>&1 || true
address="$(cat "$seen")"
sleep 0.5
left="$(left_of "$address")"
if [ -z "$address" ] || [ -n "$left" ]; then
  echo "FAIL: gnome-keyring-daemon processes of an ended session are still running:" \
    "${left:-?} (session ${address:-unknown})" >&2
  exit 1
fi
echo "session-keyring: 4 passed, 0 failed"
