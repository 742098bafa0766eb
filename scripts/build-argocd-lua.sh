#!/usr/bin/env bash
# Builds the Argo CD health-script runner (scripts/argocd-lua) from the Go module proxy
# for the export tests, into a cache folder outside the repository, and reuses it when
# built. It runs scripts in gopher-lua, the interpreter Argo CD embeds, set up as Argo CD's
# util/lua sets it up: Argo CD's own module (github.com/argoproj/argo-cd/v3) needs a newer
# Go than this project builds with and its gitops-engine does not build from the proxy
# (docs/decisions/0065-argocd-lua-runner.md).
#
#   scripts/build-argocd-lua.sh            # prints the folder holding argocd-lua
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   GOPHER_LUA_VERSION   github.com/yuin/gopher-lua release (default below: the one Argo CD v3.6.2 requires)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
HERE="$(cd "$HERE" && pwd)"
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

GOPHER_LUA_VERSION="${GOPHER_LUA_VERSION:-v1.1.2}"
# the runner's source is part of the cache key: a change to it builds a new runner
SOURCE_SUM="$(sha256sum "$HERE/argocd-lua/main.go" | cut -c1-12)"
OUT="$CACHE_ROOT/argocd-lua-$GOPHER_LUA_VERSION-$SOURCE_SUM"
built() { [[ -x "$OUT/argocd-lua" ]]; }

testbin_begin "argocd-lua"

runner_module() {
    go mod init wlmap.dev/testbin/argocdlua >/dev/null 2>&1
    cp "$HERE/argocd-lua/main.go" .
    go mod edit -require "github.com/yuin/gopher-lua@$GOPHER_LUA_VERSION"
    go mod tidy >&2
}

runner_binary() {
    go build -trimpath -o "$OUT/argocd-lua.partial" .
    mv "$OUT/argocd-lua.partial" "$OUT/argocd-lua"
}

log "building argocd-lua (gopher-lua $GOPHER_LUA_VERSION) into $OUT"
mkdir -p "$WORK/argocd-lua"
cd "$WORK/argocd-lua"
step "argocd-lua: resolving modules" runner_module
step "argocd-lua: compiling" runner_binary
log "done"
echo "$OUT"
