#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy for the integration tests,
# into a cache folder outside the repository, and reuses them when already built.
#
#   scripts/build-apiserver.sh            # prints the folder holding both binaries
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   KUBERNETES_VERSION   k8s.io/kubernetes release (default below)
#   ETCD_VERSION         go.etcd.io/etcd/server/v3 release (default below)
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE_ROOT="${WLMAP_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wlmap/testbin}"
OUT="$CACHE_ROOT/kubernetes-$KUBERNETES_VERSION-etcd-$ETCD_VERSION"

if [[ -x "$OUT/kube-apiserver" && -x "$OUT/etcd" ]]; then
    echo "$OUT"
    exit 0
fi

command -v go >/dev/null || { echo "build-apiserver: the go command is needed to build kube-apiserver and etcd" >&2; exit 1; }
export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
mkdir -p "$OUT"
WORK="$(mktemp -d "$CACHE_ROOT/build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

log() { echo "build-apiserver: $*" >&2; }

# kube-apiserver: k8s.io/kubernetes names its staging modules as v0.0.0 with local
# replace directives, which do not apply to a dependent module; pin each of them to the
# release's matching v0.x tag instead.
staging_version="v0.${KUBERNETES_VERSION#v1.}"
log "kube-apiserver $KUBERNETES_VERSION (staging modules at $staging_version)"
mkdir -p "$WORK/apiserver"
(
    cd "$WORK/apiserver"
    go mod init wlmap.dev/testbin/apiserver >/dev/null 2>&1
    gomod="$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
    [[ -f "$gomod" ]] || { log "could not download k8s.io/kubernetes@$KUBERNETES_VERSION"; exit 1; }
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
    minor="${KUBERNETES_VERSION#v1.}"; minor="${minor%%.*}"
    stamp="k8s.io/component-base/version"
    go build -trimpath -o "$OUT/kube-apiserver.partial" \
        -ldflags "-X $stamp.gitVersion=$KUBERNETES_VERSION -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor" \
        k8s.io/kubernetes/cmd/kube-apiserver
    mv "$OUT/kube-apiserver.partial" "$OUT/kube-apiserver"
)

# etcd: the server module's main package, in a module of its own so its dependencies do
# not meet the apiserver's.
log "etcd $ETCD_VERSION"
mkdir -p "$WORK/etcd"
(
    cd "$WORK/etcd"
    go mod init wlmap.dev/testbin/etcd >/dev/null 2>&1
    go mod edit -require "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
    go mod tidy >&2
    go build -trimpath -o "$OUT/etcd.partial" go.etcd.io/etcd/server/v3
    mv "$OUT/etcd.partial" "$OUT/etcd"
)

echo "$OUT"
