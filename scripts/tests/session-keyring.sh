#!/usr/bin/env bash
# Regression tests for the test command's keychain session (issue: on a fresh machine the first
# keychain tests ran against a half-started gnome-keyring and failed).
# 1. The command inside `with_session` can use the Secret Service on its very first call, in
#    several fresh sessions in a row (each with a keyring directory that never existed).
# 2. Without a working gnome-keyring the helper fails with a clear message and never runs the
#    command.
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
out="$(PATH="$fake_bin:$PATH" SWITCHYARD_KEYRING_ATTEMPTS=2 SWITCHYARD_KEYRING_WAIT_S=1 \
  with_session sh -c "touch '$marker'" 2>&1)"
rc=$?
set -e
if [ "$rc" -ne 70 ] || [ -e "$marker" ] || ! grep -q "never answered" <<<"$out"; then
  echo "FAIL: a keyring that never answers must stop the run with exit 70 and a message" \
    "(rc=$rc, ran=$([ -e "$marker" ] && echo yes || echo no), output: $out)" >&2
  exit 1
fi
echo "session-keyring: 2 passed, 0 failed"
