#!/usr/bin/env bash
# The .deb as a user gets it: built by scripts/package.sh, installed with apt-get (its
# dependencies resolved from the package's own Depends), the installed app launched under Xvfb
# until it paints, its desktop entry, icon and bundled CLI checked, then removed, leaving
# nothing in /usr.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
finish() {
  echo "package: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

packages="$(./scripts/package.sh)" || { fail "scripts/package.sh failed"; finish; exit 1; }
deb="$(grep '\.deb$' <<<"$packages" || true)"
rpm="$(grep '\.rpm$' <<<"$packages" || true)"
[ "$(wc -l <<<"$packages")" -eq 2 ] && ok "package.sh printed two paths" ||
  fail "package.sh printed: $packages"
[ -f "$rpm" ] && ok "the .rpm is there ($(basename "$rpm"))" || fail "no .rpm: $packages"
if [ ! -f "$deb" ]; then
  fail "no .deb: $packages"
  finish
  exit 1
fi
case "$(basename "$deb")" in
  switchyard_*.deb) ok "the .deb has Debian's naming ($(basename "$deb"))" ;;
  *) fail "the .deb is named $(basename "$deb")" ;;
esac

# Installed as a user would: apt resolves what the package declares it needs.
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
cp "$deb" "$workdir/"
if (cd "$workdir" && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "./$(basename "$deb")") >"$workdir/install.log" 2>&1; then
  ok "apt-get install ./$(basename "$deb")"
else
  fail "apt-get install failed: $(tail -5 "$workdir/install.log")"
  finish
  exit 1
fi
dpkg -L switchyard >"$workdir/files"

want_version="$(dpkg-deb -f "$deb" Version)"
[ -x /usr/bin/switchyard-desktop ] && ok "the app is /usr/bin/switchyard-desktop" || fail "no /usr/bin/switchyard-desktop"
desktop="$(grep '^/usr/share/applications/.*\.desktop$' "$workdir/files" | head -1)"
if [ -n "$desktop" ] && grep -q '^Exec=switchyard-desktop' "$desktop"; then
  ok "desktop entry $desktop starts the app"
else
  fail "no desktop entry that starts switchyard-desktop (${desktop:-none})"
fi
icon_name="$(sed -n 's/^Icon=//p' "${desktop:-/dev/null}" | head -1)"
if [ -n "$icon_name" ] && grep -q "^/usr/share/icons/hicolor/.*/apps/$icon_name\.png$" "$workdir/files"; then
  ok "icon $icon_name is installed"
else
  fail "no icon for Icon=${icon_name:-none}"
fi
cli_version="$(/usr/bin/switchyard --version 2>&1)" || true
grep -qF "$want_version" <<<"$cli_version" && ok "/usr/bin/switchyard --version: $cli_version" ||
  fail "switchyard --version said: $cli_version (package $want_version)"

home="$workdir/home"
mkdir -p "$home"
doctor_rc=0
SWITCHYARD_HOME="$home" /usr/bin/switchyard doctor --json >"$workdir/doctor.json" 2>"$workdir/doctor.err" || doctor_rc=$?
# Exit 2 means a check failed (no keychain here); the report must still be whole JSON.
if [ "$doctor_rc" -le 2 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["checks"]' "$workdir/doctor.json" 2>/dev/null; then
  ok "switchyard doctor --json answers (exit $doctor_rc)"
else
  fail "switchyard doctor --json (exit $doctor_rc): $(head -c 400 "$workdir/doctor.json") $(tail -3 "$workdir/doctor.err")"
fi

paint="$(SWITCHYARD_HOME="$home" SWITCHYARD_EXIT_ON_FIRST_PAINT=1 SWITCHYARD_NO_BACKGROUND_REFRESH=1 \
  XDG_DATA_HOME="$workdir/xdg" timeout 90 xvfb-run -a -s "-screen 0 1280x800x24" \
  /usr/bin/switchyard-desktop 2>"$workdir/app.err" | grep '^first_paint_ms=' || true)"
[ -n "$paint" ] && ok "the installed app painted its first frame ($paint)" ||
  fail "the installed app did not paint: $(tail -5 "$workdir/app.err")"

if as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y switchyard >"$workdir/remove.log" 2>&1; then
  ok "apt-get purge switchyard"
else
  fail "removal failed: $(tail -5 "$workdir/remove.log")"
fi
left=()
while read -r path; do
  case "$path" in
    /usr/*) [ -f "$path" ] || [ -L "$path" ] && left+=("$path") ;;
  esac
done <"$workdir/files"
[ "${#left[@]}" -eq 0 ] && ok "nothing it installed is left in /usr" || fail "left in /usr: ${left[*]}"
command -v switchyard-desktop >/dev/null && fail "switchyard-desktop still on PATH" || true
finish
