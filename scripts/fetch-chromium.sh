#!/usr/bin/env bash
# Finds or installs Debian's Chromium for the browser tests and prints the path of a program
# that starts it headless-capable.
#
#   scripts/fetch-chromium.sh        # prints the chromium executable
#
# /usr/bin/chromium is used when installed. Otherwise Debian's `chromium` package and the
# packages it needs that this system lacks (as `apt-get -s install --no-install-recommends`
# lists them) are downloaded with `apt-get download` and unpacked with `dpkg -x` into a cache
# folder outside the repository; no root is needed. A small wrapper there points the loader
# at the unpacked libraries. The cache is reused once complete.
#
# Environment:
#   WLMAP_CHROMIUM_CACHE  cache folder (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/chromium)
#
# Exit status: 0 with the executable on stdout; 3 when apt-get or dpkg is missing; anything
# else when the download or unpacking failed.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then
    echo /usr/bin/chromium
    exit 0
fi
CACHE="${WLMAP_CHROMIUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wlmap/chromium}"
WRAPPER="$CACHE/chromium"
if [[ -x "$WRAPPER" && -f "$CACHE/.complete" ]]; then
    echo "$WRAPPER"
    exit 0
fi
for tool in apt-get dpkg; do
    command -v "$tool" >/dev/null || { echo "fetch-chromium: $tool is missing" >&2; exit 3; }
done

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [[ -x "$WRAPPER" && -f "$CACHE/.complete" ]]; then
    echo "$WRAPPER"
    exit 0
fi
debs="$CACHE/debs"
root="$CACHE/root"
rm -rf "$debs" "$root"
mkdir -p "$debs" "$root"
# The packages an install would add: chromium itself and the libraries this system lacks.
mapfile -t packages < <(apt-get -s install --no-install-recommends chromium 2>/dev/null |
    awk '/^Inst /{print $2}')
if [[ ${#packages[@]} -eq 0 ]]; then
    echo "fetch-chromium: apt-get lists no chromium package (run apt-get update?)" >&2
    exit 1
fi
echo "fetch-chromium: downloading ${#packages[@]} Debian packages" >&2
(cd "$debs" && apt-get download "${packages[@]}" >&2)
for deb in "$debs"/*.deb; do
    dpkg -x "$deb" "$root"
done
rm -rf "$debs"

arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")"
libs="$root/usr/lib/$arch:$root/usr/lib/chromium:$root/lib/$arch"
libs="$libs:$root/usr/lib/$arch/pulseaudio"
cat >"$WRAPPER" <<WRAP
#!/bin/sh
# Debian's chromium unpacked beside this file, with its libraries.
export LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$root/usr/lib/chromium/chromium" "\$@"
WRAP
chmod +x "$WRAPPER"
touch "$CACHE/.complete"
echo "$WRAPPER"
