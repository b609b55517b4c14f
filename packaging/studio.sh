#!/usr/bin/env bash
# The README's set-up commands:
#   packaging/studio.sh run    install what is missing, build, start the studio
#   packaging/studio.sh test   install what is missing, build, run the whole test suite, then
#                              the sanitizer suite and the fuzz suite for 30 s per target
#   packaging/studio.sh sanitize   build the engine, launcher, CLI and their tests with ASan and
#                              UBSan into build-asan/ and run those tests (test runs it too)
#   packaging/studio.sh tsan       the controller and store tests with ThreadSanitizer, into
#                              build-tsan/ (not part of test)
#   packaging/studio.sh fuzz [SECONDS]
#                              install what is missing, build the libFuzzer targets (tests/fuzz)
#                              into build-fuzz/, run each SECONDS (300); the summary lands in
#                              build-fuzz/fuzz-summary.json
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
fuzz_build="$root/build-fuzz"
asan_build="$root/build-asan"
tsan_build="$root/build-tsan"
# Object files are cached by paths relative to the checkout, so a fresh clone reuses them.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

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

# The engine, launcher and CLI with AddressSanitizer and UBSan (no GUI, no LibTorch targets),
# and the tests that drive them: every memory error or undefined behaviour fails the suite.
sanitized_tests=(test_wire test_spec test_store test_launcher test_control test_train_core
    test_remote test_spot test_launcher_process test_jobs test_control_channel test_cli
    test_lost_jobs test_secrets test_imds_poller test_faults test_hostile_user test_disk_full)

# Builds DIR with a sanitizer (the CMake option OPTION, at FLAGS) and runs the named tests there,
# with ENV (space-separated NAME=value) in their environment.
sanitized_run() {
    local dir=$1 option=$2 flags=$3 env=$4
    shift 4
    if [[ ! -f "$dir/build.ninja" ]]; then
        cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
            -DCMAKE_CXX_FLAGS_DEBUG="$flags" -D"$option"=ON -DSTUDIO_GUI=OFF
    fi
    cmake --build "$dir" --target studio-launcher mlstudio "$@"
    local pattern
    pattern="^($(IFS='|'; echo "$*"))\$"
    # shellcheck disable=SC2086 # env is a list of NAME=value words
    (cd "$dir" && env $env QT_QPA_PLATFORM=offscreen ctest --output-on-failure -R "$pattern")
}

sanitizer_suite() {
    sanitized_run "$asan_build" STUDIO_SANITIZE "-O0 -g1" \
        "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1" \
        "${sanitized_tests[@]}"
}

# ThreadSanitizer over the controller and the store (their threads: the store's writer, the job
# runners, the control server, the takeover watcher), into build-tsan/. Not part of `test`.
tsan_tests=(test_store test_control test_jobs test_control_channel test_lost_jobs test_cli
    test_disk_full test_secrets)
tsan_suite() {
    sanitized_run "$tsan_build" STUDIO_TSAN "-O1 -g1" \
        "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp" \
        "${tsan_tests[@]}"
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
    sanitizer_suite
    fuzz_suite 30
    ;;
sanitize)
    install_missing
    sanitizer_suite
    ;;
tsan)
    install_missing
    tsan_suite
    ;;
fuzz)
    install_missing
    fuzz_suite "${2:-300}"
    ;;
*)
    echo "usage: $0 run|test|sanitize|tsan|fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
