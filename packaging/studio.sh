#!/usr/bin/env bash
# The README's set-up commands:
#   packaging/studio.sh run    install what is missing, build, start the studio
#   packaging/studio.sh test   install what is missing, build, run the whole test suite, then
#                              the fuzz suite for 30 s per target
#   packaging/studio.sh fuzz [SECONDS]
#                              install what is missing, build the libFuzzer targets (tests/fuzz)
#                              into build-fuzz/, run each SECONDS (300); the summary lands in
#                              build-fuzz/fuzz-summary.json
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
fuzz_build="$root/build-fuzz"

# Debian 12 packages the studio needs to build, run and test.
packages=(
    cmake ninja-build g++ pkg-config ccache
    qt6-base-dev qt6-charts-dev qt6-declarative-dev qt6-svg-dev qt6-qpa-plugins
    libtorch-dev libgloo-dev python3-torch libopenblas0-pthread
    libsqlite3-dev libsqlitecpp-dev nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev
    zlib1g-dev dataset-fashion-mnist chromium fonts-dejavu-core python3-nbformat
    openssh-server openssh-client iproute2 libre2-dev
    clang libclang-rt-14-dev
)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    echo "Installing: ${missing[*]}"
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
}

build_studio() {
    if [[ ! -f "$build/build.ninja" ]]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
    fi
    cmake --build "$build"
}

# The fuzz targets build apart from the studio: clang with libFuzzer and sanitizers.
fuzz_suite() {
    if [[ ! -f "$fuzz_build/build.ninja" ]]; then
        cmake -S "$root/tests/fuzz" -B "$fuzz_build" -G Ninja \
            -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
    fi
    cmake --build "$fuzz_build"
    "$root/tests/fuzz/run_fuzzers.sh" "$fuzz_build" "$1" "$fuzz_build/fuzz-summary.json"
}

headless_demo() {
    echo "No display: running the example job headless."
    "$build/bin/mlstudio" run "$root/resources/examples/pytorch-ddp-script.json"
    local home=${MLSTUDIO_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/mlstudio}
    echo "Results are in $home (database studio.db, jobs/ for logs, checkpoints and models)."
    echo "Try: $build/bin/mlstudio list jobs    $build/bin/mlstudio show pytorch-ddp-script"
}

case "${1:-}" in
run)
    install_missing
    build_studio
    if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
        exec "$build/bin/mlstudio" studio
    fi
    headless_demo
    ;;
test)
    install_missing
    build_studio
    cd "$build"
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure
    fuzz_suite 30
    ;;
fuzz)
    install_missing
    fuzz_suite "${2:-300}"
    ;;
*)
    echo "usage: $0 run|test|fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
