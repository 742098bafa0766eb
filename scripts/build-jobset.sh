#!/usr/bin/env bash
# Builds JobSet's controller manager from the Go module proxy for the integration tests,
# into a cache folder outside the repository, and reuses it when built. JobSet's CRDs and
# webhook configurations are copied from the module beside it (config/), so the tests
# install those of the binary's own version.
#
#   scripts/build-jobset.sh               # prints the folder holding jobset and config/
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   JOBSET_VERSION       sigs.k8s.io/jobset release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

# the newest release the proxy serves that builds on Go 1.26 against Kubernetes 1.36's API
JOBSET_VERSION="${JOBSET_VERSION:-v0.12.0}"
OUT="$CACHE_ROOT/jobset-$JOBSET_VERSION"
built() { [[ -x "$OUT/jobset" && -f "$OUT/config/webhook/manifests.yaml" ]]; }

testbin_begin "jobset"

jobset_module() {
    go mod init wlmap.dev/testbin/jobset >/dev/null 2>&1
    go mod edit -require "sigs.k8s.io/jobset@$JOBSET_VERSION"
    tools_file sigs.k8s.io/jobset
    go mod tidy >&2
}

jobset_binary() {
    go build -trimpath -o "$OUT/jobset.partial" \
        -ldflags "-X sigs.k8s.io/jobset/pkg/version.GitVersion=$JOBSET_VERSION" sigs.k8s.io/jobset
    mv "$OUT/jobset.partial" "$OUT/jobset"
}

# The CRDs and the webhook configurations; last, as built() takes the webhook file as the
# sign that all is there.
jobset_config() {
    local source
    source="$(go list -m -f '{{.Dir}}' sigs.k8s.io/jobset)/config/components"
    rm -rf "$OUT/config.partial"
    mkdir -p "$OUT/config.partial/crd" "$OUT/config.partial/webhook"
    cp "$source"/crd/bases/*.yaml "$OUT/config.partial/crd/"
    cp "$source/webhook/manifests.yaml" "$OUT/config.partial/webhook/"
    chmod -R u+w "$OUT/config.partial"  # the module cache is read-only
    rm -rf "$OUT/config"
    mv "$OUT/config.partial" "$OUT/config"
}

log "building jobset $JOBSET_VERSION into $OUT"
mkdir -p "$WORK/jobset"
cd "$WORK/jobset"
step "jobset: resolving modules" jobset_module
step "jobset: compiling" jobset_binary
step "jobset: copying its CRDs and webhook configurations" jobset_config
log "done"
echo "$OUT"
