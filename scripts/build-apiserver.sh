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
#   KUBERNETES_VERSION   k8s.io/kubernetes release (default below)
#   ETCD_VERSION         go.etcd.io/etcd/server/v3 release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE_ROOT="${WLMAP_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wlmap/testbin}"
OUT="$CACHE_ROOT/kubernetes-$KUBERNETES_VERSION-etcd-$ETCD_VERSION"
LOCK="$CACHE_ROOT/build.lock"
MISSING_GO=3
HEARTBEAT="${WLMAP_BUILD_HEARTBEAT:-30}"

log() { printf 'build-apiserver: [%02d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
built() { [[ -x "$OUT/kube-apiserver" && -x "$OUT/etcd" ]]; }

# Both binaries are moved into place only when complete, so this needs no lock.
if built; then
    echo "$OUT"
    exit 0
fi

mkdir -p "$CACHE_ROOT"
if command -v flock >/dev/null; then
    exec 9>>"$LOCK"
    if ! flock -n 9; then
        log "another build holds $LOCK; waiting for it to finish"
        flock 9
        log "the other build finished"
    fi
else
    log "flock not found: not guarding against a concurrent build"
fi
if built; then  # the build we waited for made them
    log "using $OUT"
    echo "$OUT"
    exit 0
fi

command -v go >/dev/null || {
    log "the go command is needed to build kube-apiserver and etcd"
    exit "$MISSING_GO"
}
export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
mkdir -p "$OUT"
WORK="$(mktemp -d "$CACHE_ROOT/build.XXXXXX")"
TICKER=""
cleanup() {
    if [[ -n "$TICKER" ]]; then kill "$TICKER" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ticker DESCRIPTION: says every HEARTBEAT seconds that the step is still running, until
# killed; its sleep goes with it, so no process outlives the script holding its output.
ticker() {
    local sleeper=""
    trap 'kill $sleeper 2>/dev/null; exit 0' TERM
    while :; do
        sleep "$HEARTBEAT" </dev/null >/dev/null 2>&1 &
        sleeper=$!
        wait "$sleeper"
        log "$1: still running"
    done
}

# step DESCRIPTION COMMAND...: runs one step, saying what it is and how long it took.
step() {
    local what="$1" started=$SECONDS
    shift
    log "$what"
    # only this script holds the lock's descriptor (fd 9): nothing it starts keeps the
    # lock after it ends
    ticker "$what" 9>&- &
    TICKER=$!
    "$@" 9>&-
    kill "$TICKER" 2>/dev/null || true
    wait "$TICKER" 2>/dev/null || true
    TICKER=""
    log "$what: done in $((SECONDS - started)) s"
}

# kube-apiserver: k8s.io/kubernetes names its staging modules as v0.0.0 with local
# replace directives, which do not apply to a dependent module; pin each of them to the
# release's matching v0.x tag instead.
apiserver_module() {
    local staging_version="v0.${KUBERNETES_VERSION#v1.}" gomod
    go mod init wlmap.dev/testbin/apiserver >/dev/null 2>&1
    gomod="$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
    [[ -f "$gomod" ]] || { log "could not download k8s.io/kubernetes@$KUBERNETES_VERSION"; return 1; }
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$gomod" | while read -r module; do
        go mod edit -replace "$module=$module@$staging_version"
    done
    go mod edit -require "k8s.io/kubernetes@$KUBERNETES_VERSION"
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
    go mod tidy >&2
}

apiserver_binary() {
    local minor="${KUBERNETES_VERSION#v1.}" stamp="k8s.io/component-base/version"
    minor="${minor%%.*}"
    go build -trimpath -o "$OUT/kube-apiserver.partial" \
        -ldflags "-X $stamp.gitVersion=$KUBERNETES_VERSION -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor" \
        k8s.io/kubernetes/cmd/kube-apiserver
    mv "$OUT/kube-apiserver.partial" "$OUT/kube-apiserver"
}

# etcd: the server module's main package, in a module of its own so its dependencies do
# not meet the apiserver's.
etcd_module() {
    go mod init wlmap.dev/testbin/etcd >/dev/null 2>&1
    go mod edit -require "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
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
    step "kube-apiserver: resolving modules" apiserver_module
    step "kube-apiserver: compiling" apiserver_binary
fi
cd "$WORK/etcd"
step "etcd: resolving modules" etcd_module
step "etcd: compiling" etcd_binary
log "done"
echo "$OUT"
