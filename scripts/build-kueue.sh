#!/usr/bin/env bash
# Builds Kueue's controller manager from the Go module proxy for the integration tests,
# into a cache folder outside the repository, and reuses it when built. Kueue's CRDs and
# webhook configurations are copied from the module beside it (config/), so the tests
# install those of the binary's own version.
#
#   scripts/build-kueue.sh                # prints the folder holding kueue and config/
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   KUEUE_VERSION        sigs.k8s.io/kueue release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

KUEUE_VERSION="${KUEUE_VERSION:-v0.17.0}"
OUT="$CACHE_ROOT/kueue-$KUEUE_VERSION"
# the CRDs Kueue's own install gives a conversion webhook (config/components/crd)
CONVERTED=(localqueues clusterqueues cohorts workloads multikueueclusters)
built() { [[ -x "$OUT/kueue" && -f "$OUT/config/webhook/manifests.yaml" ]]; }

testbin_begin "kueue"

kueue_module() {
    go mod init wlmap.dev/testbin/kueue >/dev/null 2>&1
    go mod edit -require "sigs.k8s.io/kueue@$KUEUE_VERSION"
    tools_file sigs.k8s.io/kueue/cmd/kueue
    go mod tidy >&2
}

kueue_binary() {
    go build -trimpath -o "$OUT/kueue.partial" \
        -ldflags "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" sigs.k8s.io/kueue/cmd/kueue
    mv "$OUT/kueue.partial" "$OUT/kueue"
}

# The CRDs, the patches that give CONVERTED's a conversion webhook, and the webhook
# configurations; last, as built() takes the webhook file as the sign that all is there.
kueue_config() {
    local source
    source="$(go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)/config/components"
    rm -rf "$OUT/config.partial"
    mkdir -p "$OUT/config.partial/crd" "$OUT/config.partial/crd-patches" "$OUT/config.partial/webhook"
    cp "$source"/crd/bases/*.yaml "$OUT/config.partial/crd/"
    for crd in "${CONVERTED[@]}"; do
        cp "$source/crd/patches/webhook_in_$crd.yaml" "$OUT/config.partial/crd-patches/"
    done
    cp "$source/webhook/manifests.yaml" "$OUT/config.partial/webhook/"
    chmod -R u+w "$OUT/config.partial"  # the module cache is read-only
    rm -rf "$OUT/config"
    mv "$OUT/config.partial" "$OUT/config"
}

log "building kueue $KUEUE_VERSION into $OUT"
mkdir -p "$WORK/kueue"
cd "$WORK/kueue"
step "kueue: resolving modules" kueue_module
step "kueue: compiling" kueue_binary
step "kueue: copying its CRDs and webhook configurations" kueue_config
log "done"
echo "$OUT"
