# Shared by the scripts that build the integration tests' binaries from the Go module
# proxy (build-apiserver.sh, build-cluster-parts.sh): the cache folder, the lock against
# concurrent builds, progress lines, and the pinning of k8s.io/kubernetes's modules.
#
# A script sets OUT (its folder under CACHE_ROOT) and defines built() before calling
# testbin_begin, then runs each build with `step`.
#
# Environment:
#   WLMAP_TESTBIN_CACHE    cache root (default: ${XDG_CACHE_HOME:-~/.cache}/wlmap/testbin)
#   KUBERNETES_VERSION     k8s.io/kubernetes release (default below)
#   WLMAP_BUILD_HEARTBEAT  seconds between "still running" lines of a long step (30)

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.36.3}"
CACHE_ROOT="${WLMAP_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wlmap/testbin}"
LOCK="$CACHE_ROOT/build.lock"
MISSING_GO=3
HEARTBEAT="${WLMAP_BUILD_HEARTBEAT:-30}"
TESTBIN_NAME="${0##*/}"
TESTBIN_NAME="${TESTBIN_NAME%.sh}"
TICKER=""
WORK=""

log() { printf '%s: [%02d:%02d] %s\n' "$TESTBIN_NAME" $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# testbin_begin WHAT: prints OUT and exits when built; otherwise takes the cache root's
# lock (waiting for another run's build, then exiting if that one built OUT), checks that
# go is there (exit MISSING_GO when not), and makes OUT and a work folder removed on exit.
testbin_begin() {
    # binaries are moved into place only when complete, so this needs no lock
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
        log "the go command is needed to build $1"
        exit "$MISSING_GO"
    }
    export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
    mkdir -p "$OUT"
    WORK="$(mktemp -d "$CACHE_ROOT/build.XXXXXX")"
    trap testbin_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

testbin_cleanup() {
    if [[ -n "$TICKER" ]]; then kill "$TICKER" 2>/dev/null || true; fi
    if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi
}

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

# tools_file PACKAGE...: a tools.go in the current folder importing each package, so that
# `go mod tidy` resolves what they need.
tools_file() {
    {
        printf '//go:build tools\n\npackage tools\n\nimport (\n'
        printf '\t_ "%s"\n' "$@"
        printf ')\n'
    } > tools.go
}

# kubernetes_module NAME PACKAGE...: a module in the current folder building commands of
# k8s.io/kubernetes. It names its staging modules as v0.0.0 with local replace directives,
# which do not apply to a dependent module; each is pinned to the release's v0.x tag.
kubernetes_module() {
    local name="$1" staging_version="v0.${KUBERNETES_VERSION#v1.}" gomod
    shift
    go mod init "wlmap.dev/testbin/$name" >/dev/null 2>&1
    gomod="$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
    [[ -f "$gomod" ]] || { log "could not download k8s.io/kubernetes@$KUBERNETES_VERSION"; return 1; }
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$gomod" | while read -r module; do
        go mod edit -replace "$module=$module@$staging_version"
    done
    go mod edit -require "k8s.io/kubernetes@$KUBERNETES_VERSION"
    tools_file "$@"
    go mod tidy >&2
}

# kubernetes_binary NAME: builds k8s.io/kubernetes/cmd/NAME into OUT, stamped with the
# release's version as its own build would be.
kubernetes_binary() {
    local minor="${KUBERNETES_VERSION#v1.}" stamp="k8s.io/component-base/version"
    minor="${minor%%.*}"
    go build -trimpath -o "$OUT/$1.partial" \
        -ldflags "-X $stamp.gitVersion=$KUBERNETES_VERSION -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor" \
        "k8s.io/kubernetes/cmd/$1"
    mv "$OUT/$1.partial" "$OUT/$1"
}
