#!/usr/bin/env bash
# What the test session's D-Bus starts for org.freedesktop.secrets (see with_session in
# lib.sh): gnome-keyring's Secret Service on that session's own keyring folder ($1),
# unlocked. So a daemon that exits or crashes mid-run is replaced, on the next call, by one
# that can answer, instead of the system's service file starting a locked one on the user's
# login keyring.
export XDG_DATA_HOME="$1"
exec gnome-keyring-daemon --unlock --components=secrets --foreground < <(printf '%s' test)
