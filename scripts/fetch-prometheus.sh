#!/usr/bin/env bash
# Builds Prometheus and promtool from the Go module proxy for the metrics tests, into a
# cache folder outside the repository, and reuses them when built. The tests scrape the
# exporter with the real Prometheus and check the generated rules with promtool.
#
#   scripts/fetch-prometheus.sh           # prints the folder holding prometheus and promtool
#
# The service discovery plugins are left out (build tag remove_all_sd): the tests give
# static targets, and the build is much smaller without the cloud SDKs. Progress, the cache
# root and the lock are those of build-apiserver.sh (lib/testbin.sh).
#
# Environment:
#   WLMAP_TESTBIN_CACHE  cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   PROMETHEUS_MODULE_VERSION  github.com/prometheus/prometheus module version (default
#                        below; the module's v0.3NN.x is Prometheus's v3.NN.x)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)
#
# Exit status: 0 with the folder on stdout; 3 when a build is needed and the go command is
# missing; anything else when the build failed.
set -euo pipefail
HERE="${BASH_SOURCE[0]%/*}"
[[ "$HERE" != "${BASH_SOURCE[0]}" ]] || HERE=.
# shellcheck source=lib/testbin.sh
source "$HERE/lib/testbin.sh"

PROMETHEUS_MODULE_VERSION="${PROMETHEUS_MODULE_VERSION:-v0.316.0}"
OUT="$CACHE_ROOT/prometheus-$PROMETHEUS_MODULE_VERSION"
MODULE=github.com/prometheus/prometheus
built() { [[ -x "$OUT/prometheus" && -x "$OUT/promtool" ]]; }

testbin_begin "prometheus"

prometheus_module() {
    go mod init wlmap.dev/testbin/prometheus >/dev/null 2>&1
    go mod edit -require "$MODULE@$PROMETHEUS_MODULE_VERSION"
    tools_file "$MODULE/cmd/prometheus" "$MODULE/cmd/promtool"
    go mod tidy >&2
}

# prometheus_binary NAME: builds cmd/NAME into OUT, stamped with the release's version.
prometheus_binary() {
    local release="v3.${PROMETHEUS_MODULE_VERSION#v0.3}" stamp="github.com/prometheus/common/version"
    go build -trimpath -tags remove_all_sd -o "$OUT/$1.partial" \
        -ldflags "-X $stamp.Version=${release#v} -X $stamp.Branch=release" "$MODULE/cmd/$1"
    mv "$OUT/$1.partial" "$OUT/$1"
}

log "building prometheus $PROMETHEUS_MODULE_VERSION into $OUT"
mkdir -p "$WORK/prometheus"
cd "$WORK/prometheus"
step "prometheus: resolving modules" prometheus_module
step "prometheus: compiling promtool" prometheus_binary promtool
step "prometheus: compiling prometheus" prometheus_binary prometheus
log "done"
echo "$OUT"
