#!/usr/bin/env bash
# Builds the installable packages: a .deb and an .rpm from the Tauri bundler, each with the
# desktop app, its desktop entry and icons, and the `switchyard` CLI on PATH. Prints the path
# of each package built, one per line, on stdout (everything else goes to stderr).
#
# The version is the workspace's (Cargo.toml); tauri.conf.json names none, so Tauri takes it
# from there too. AppImage is not offered: its bundler downloads linuxdeploy and its plugins
# from outside the package registries at build time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
exec 3>&1 1>&2
ensure_disk_space
ensure_apt
ensure_rust
ensure_node
build_ui

step "building the app and the CLI (release)"
cargo build --release --locked -p switchyard-desktop --features custom-protocol
cargo build --release --locked -p switchyard-cli

step "bundling .deb and .rpm"
release="$CARGO_TARGET_DIR/release"
bundle_dir="$release/bundle"
rm -rf "$bundle_dir/deb" "$bundle_dir/rpm"
# The CLI's path is only known here (the build cache lives outside the clone), so it joins
# the configuration at bundle time.
extra_files="{\"/usr/bin/switchyard\": \"$release/switchyard\"}"
"$ROOT/ui/node_modules/.bin/tauri" bundle --ci --bundles deb,rpm --features custom-protocol \
  --config "{\"bundle\": {\"linux\": {\"deb\": {\"files\": $extra_files}, \"rpm\": {\"files\": $extra_files}}}}"

# Debian's and Fedora's own naming (`switchyard_0.1.0_amd64.deb`), not the product name's.
version="$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "switchyard-desktop"))')"
built=0
for file in "$bundle_dir"/deb/*.deb "$bundle_dir"/rpm/*.rpm; do
  [ -f "$file" ] || continue
  case "$file" in
    *.deb) named="$bundle_dir/deb/switchyard_${version}_$(dpkg --print-architecture).deb" ;;
    *.rpm) named="$bundle_dir/rpm/switchyard-${version}-1.$(uname -m).rpm" ;;
  esac
  [ "$file" = "$named" ] || mv -f "$file" "$named"
  echo "$named" >&3
  built=$((built + 1))
done
if [ "$built" -ne 2 ]; then
  echo "expected a .deb and an .rpm in $bundle_dir, found $built package(s)" >&2
  exit 1
fi
