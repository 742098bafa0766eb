#!/usr/bin/env bash
# Caches the coscheduling PodGroup CRD of kubernetes-sigs/scheduler-plugins for the
# integration tests, from a released sigs.k8s.io/scheduler-plugins module on the Go module
# proxy, into a cache folder outside the repository; reused once there. Nothing is built:
# the tests install the CRD, and the API server checks every PodGroup against its schema.
#
#   scripts/fetch-scheduler-plugins.sh   # prints the folder holding crd/
#
# The module keeps its CRDs in config/crd/bases (manifests/crds holds symbolic links, which
# module archives leave out). Progress, the cache root and the lock are those of
# build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE        cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   SCHEDULER_PLUGINS_VERSION  sigs.k8s.io/scheduler-plugins release (default below)
#
# Exit status: 0 with the folder on stdout; 3 when the CRD is not cached and the go command
# is missing; anything else when the download failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

SCHEDULER_PLUGINS_VERSION="${SCHEDULER_PLUGINS_VERSION:-v0.34.7}"
OUT="$CACHE_ROOT/scheduler-plugins-$SCHEDULER_PLUGINS_VERSION"
CRD="scheduling.x-k8s.io_podgroups.yaml"
built() { [[ -f "$OUT/crd/$CRD" ]]; }

testbin_begin "the scheduler-plugins CRDs"

plugins_module() {
    go mod init wlmap.dev/testbin/scheduler-plugins >/dev/null 2>&1
    go mod edit -require "sigs.k8s.io/scheduler-plugins@$SCHEDULER_PLUGINS_VERSION"
    go mod download sigs.k8s.io/scheduler-plugins
}

# Copied last and moved into place whole, as built() takes the file as the sign it is there.
plugins_crd() {
    local source
    source="$(go list -m -f '{{.Dir}}' sigs.k8s.io/scheduler-plugins)/config/crd/bases"
    rm -rf "$OUT/crd.partial"
    mkdir -p "$OUT/crd.partial"
    cp "$source/$CRD" "$OUT/crd.partial/"
    chmod -R u+w "$OUT/crd.partial"  # the module cache is read-only
    rm -rf "$OUT/crd"
    mv "$OUT/crd.partial" "$OUT/crd"
}

log "fetching scheduler-plugins $SCHEDULER_PLUGINS_VERSION into $OUT"
mkdir -p "$WORK/scheduler-plugins"
cd "$WORK/scheduler-plugins"
step "scheduler-plugins: resolving the module" plugins_module
step "scheduler-plugins: copying its PodGroup CRD" plugins_crd
log "done"
echo "$OUT"
