#!/usr/bin/env bash
# Builds the helm command for the chart's tests from a released helm.sh/helm/v4 module on
# the Go module proxy, into a cache folder outside the repository, and reuses it when built.
#
#   scripts/fetch-helm.sh                 # prints the folder holding helm
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   HELM_VERSION         helm.sh/helm/v4 release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

HELM_VERSION="${HELM_VERSION:-v4.3.2}"
OUT="$CACHE_ROOT/helm-$HELM_VERSION"
built() { [[ -x "$OUT/helm" ]]; }

testbin_begin "helm"

helm_module() {
    go mod init wlmap.dev/testbin/helm >/dev/null 2>&1
    go mod edit -require "helm.sh/helm/v4@$HELM_VERSION"
    tools_file helm.sh/helm/v4/cmd/helm
    go mod tidy >&2
}

# Stamped with its release as helm's own build does, so that `helm version` and the
# chart's kubeVersion checks see it; moved into place only when complete.
helm_binary() {
    go build -trimpath -o "$OUT/helm.partial" \
        -ldflags "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" helm.sh/helm/v4/cmd/helm
    mv "$OUT/helm.partial" "$OUT/helm"
}

log "building helm $HELM_VERSION into $OUT"
mkdir -p "$WORK/helm"
cd "$WORK/helm"
step "helm: resolving modules" helm_module
step "helm: compiling" helm_binary
log "done"
echo "$OUT"
