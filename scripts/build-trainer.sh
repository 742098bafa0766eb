#!/usr/bin/env bash
# Builds Kubeflow Trainer's (v2) controller manager from the Go module proxy for the
# integration tests, into a cache folder outside the repository, and reuses it when built.
# Its CRDs and webhook configurations are copied from the module beside it (config/), so
# the tests install those of the binary's own version. Trainer runs a TrainJob as a
# JobSet: the tests run build-jobset.sh's controller beside it.
#
#   scripts/build-trainer.sh              # prints the folder holding trainer and config/
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   TRAINER_VERSION      github.com/kubeflow/trainer/v2 release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

TRAINER_VERSION="${TRAINER_VERSION:-v2.3.0}"
MODULE=github.com/kubeflow/trainer/v2
OUT="$CACHE_ROOT/trainer-$TRAINER_VERSION"
built() { [[ -x "$OUT/trainer" && -f "$OUT/config/webhook/manifests.yaml" ]]; }

testbin_begin "trainer"

trainer_module() {
    go mod init wlmap.dev/testbin/trainer >/dev/null 2>&1
    go mod edit -require "$MODULE@$TRAINER_VERSION"
    tools_file "$MODULE/cmd/trainer-controller-manager"
    go mod tidy >&2
}

trainer_binary() {
    go build -trimpath -o "$OUT/trainer.partial" "$MODULE/cmd/trainer-controller-manager"
    mv "$OUT/trainer.partial" "$OUT/trainer"
}

# The CRDs and the webhook configurations; last, as built() takes the webhook file as the
# sign that all is there.
trainer_config() {
    local source
    source="$(go list -m -f '{{.Dir}}' "$MODULE")/manifests/base"
    rm -rf "$OUT/config.partial"
    mkdir -p "$OUT/config.partial/crd" "$OUT/config.partial/webhook"
    cp "$source"/crds/trainer.kubeflow.org_*.yaml "$OUT/config.partial/crd/"
    cp "$source/webhook/manifests.yaml" "$OUT/config.partial/webhook/"
    chmod -R u+w "$OUT/config.partial"  # the module cache is read-only
    rm -rf "$OUT/config"
    mv "$OUT/config.partial" "$OUT/config"
}

log "building trainer $TRAINER_VERSION into $OUT"
mkdir -p "$WORK/trainer"
cd "$WORK/trainer"
step "trainer: resolving modules" trainer_module
step "trainer: compiling" trainer_binary
step "trainer: copying its CRDs and webhook configurations" trainer_config
log "done"
echo "$OUT"
