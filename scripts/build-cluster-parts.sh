#!/usr/bin/env bash
# Builds the parts of a cluster beyond its API server for the integration tests, from the
# Go module proxy, into a cache folder outside the repository, and reuses them when built:
# kube-scheduler and kube-controller-manager (the release of build-apiserver.sh's
# kube-apiserver) and KWOK's controller (fake nodes that turn Ready and run pods), with
# KWOK's default stages copied from its module.
#
#   scripts/build-cluster-parts.sh        # prints the folder holding them
#
# The folder holds kube-scheduler, kube-controller-manager, kwok, and stages/ with one file
# per KWOK stage (node-initialize, node-heartbeat-with-lease, pod-ready, pod-complete,
# pod-delete), as KWOK's own cluster tool configures them by default.
#
# Progress, the cache root and the lock are those of build-apiserver.sh (lib/testbin.sh);
# the two scripts take turns on one lock.
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   KUBERNETES_VERSION   k8s.io/kubernetes release (default in lib/testbin.sh)
#   KWOK_VERSION         sigs.k8s.io/kwok release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
OUT="$CACHE_ROOT/kubernetes-$KUBERNETES_VERSION-kwok-$KWOK_VERSION"
COMPONENTS=(kube-scheduler kube-controller-manager)
# KWOK's default stages, as its module lays them out (kustomize/stage/...)
STAGES=(node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease
    pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete)
built() {
    local name
    for name in "${COMPONENTS[@]}" kwok; do [[ -x "$OUT/$name" ]] || return 1; done
    [[ -f "$OUT/stages/pod-delete.yaml" ]]
}

testbin_begin "kube-scheduler, kube-controller-manager and kwok"

kwok_module() {
    go mod init wlmap.dev/testbin/kwok >/dev/null 2>&1
    go mod edit -require "sigs.k8s.io/kwok@$KWOK_VERSION"
    tools_file sigs.k8s.io/kwok/cmd/kwok
    go mod tidy >&2
}

kwok_binary() {
    go build -trimpath -o "$OUT/kwok.partial" \
        -ldflags "-X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" sigs.k8s.io/kwok/cmd/kwok
    mv "$OUT/kwok.partial" "$OUT/kwok"
}

# The stage files last: built() takes the last of them as the sign that all is there.
kwok_stages() {
    local source stage
    source="$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
    mkdir -p "$OUT/stages.partial"
    for stage in "${STAGES[@]}"; do
        cp "$source/kustomize/stage/$stage.yaml" "$OUT/stages.partial/"
        chmod u+w "$OUT/stages.partial/${stage##*/}.yaml"  # the module cache is read-only
    done
    rm -rf "$OUT/stages"
    mv "$OUT/stages.partial" "$OUT/stages"
}

log "building kube-scheduler and kube-controller-manager $KUBERNETES_VERSION and kwok $KWOK_VERSION into $OUT"
mkdir -p "$WORK/kubernetes" "$WORK/kwok"
cd "$WORK/kubernetes"
step "kubernetes: resolving modules" kubernetes_module cluster-parts \
    "${COMPONENTS[@]/#/k8s.io/kubernetes/cmd/}"
for name in "${COMPONENTS[@]}"; do
    if [[ ! -x "$OUT/$name" ]]; then  # an earlier build may have stopped after it
        step "$name: compiling" kubernetes_binary "$name"
    fi
done
cd "$WORK/kwok"
step "kwok: resolving modules" kwok_module
step "kwok: compiling" kwok_binary
step "kwok: copying its default stages" kwok_stages
log "done"
echo "$OUT"
