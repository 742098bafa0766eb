#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy for the integration tests,
# into a cache folder outside the repository, and reuses them when already built.
#
#   scripts/build-apiserver.sh            # prints the folder holding both binaries
#
# Progress goes to stderr, one line per step with the time elapsed. One build runs at a
# time per cache root (a lock on build.lock there): a second run waits for the first and
# then uses its binaries.
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   KUBERNETES_VERSION   k8s.io/kubernetes release (default in lib/testbin.sh)
#   ETCD_VERSION         go.etcd.io/etcd/server/v3 release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
OUT="$CACHE_ROOT/kubernetes-$KUBERNETES_VERSION-etcd-$ETCD_VERSION"
built() { [[ -x "$OUT/kube-apiserver" && -x "$OUT/etcd" ]]; }

testbin_begin "kube-apiserver and etcd"

# etcd: the server module's main package, in a module of its own so its dependencies do
# not meet the apiserver's.
etcd_module() {
    go mod init wlmap.dev/testbin/etcd >/dev/null 2>&1
    go mod edit -require "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    tools_file go.etcd.io/etcd/server/v3
    go mod tidy >&2
}

etcd_binary() {
    go build -trimpath -o "$OUT/etcd.partial" go.etcd.io/etcd/server/v3
    mv "$OUT/etcd.partial" "$OUT/etcd"
}

log "building kube-apiserver $KUBERNETES_VERSION and etcd $ETCD_VERSION into $OUT"
mkdir -p "$WORK/apiserver" "$WORK/etcd"
cd "$WORK/apiserver"
if [[ ! -x "$OUT/kube-apiserver" ]]; then  # an earlier build may have stopped at etcd
    step "kube-apiserver: resolving modules" kubernetes_module apiserver k8s.io/kubernetes/cmd/kube-apiserver
    step "kube-apiserver: compiling" kubernetes_binary kube-apiserver
fi
cd "$WORK/etcd"
step "etcd: resolving modules" etcd_module
step "etcd: compiling" etcd_binary
log "done"
echo "$OUT"
