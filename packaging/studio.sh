#!/usr/bin/env bash
# The README's set-up commands:
#   packaging/studio.sh run    install what is missing, build, start the studio
#   packaging/studio.sh test   install what is missing, build, run the whole test suite, then
#                              the sanitizer suite and the fuzz suite for 30 s per target
#   packaging/studio.sh sanitize   build the engine, launcher, CLI and their tests with ASan and
#                              UBSan into build-asan/ and run those tests (test runs it too)
#   packaging/studio.sh tsan       the controller and store tests with ThreadSanitizer, into
#                              build-tsan/ (not part of test)
#   packaging/studio.sh bench [NAME...]
#                              install what is missing, build, run every bench (or the named
#                              ones) in full, one at a time, and print one table (figure, ours,
#                              anchor, ratio, goal, met or missed); reports land in build/bench/
#                              (results.json, one JSON and log per bench) and the table with the
#                              machine in docs/benchmarks.md. Takes about an hour (a 30-minute
#                              controller soak among them).
#   packaging/studio.sh fuzz [SECONDS]
#                              install what is missing, build the libFuzzer targets (tests/fuzz)
#                              into build-fuzz/, run each SECONDS (300); the summary lands in
#                              build-fuzz/fuzz-summary.json
#   packaging/studio.sh deb    install what is missing, build, and make the Debian package
#                              build/packages/mlstudio_<version>_amd64.deb with CPack (binaries,
#                              desktop entry, icons, man pages, bash completion; lintian checks it)
# --torch system|wheel (after run or test) picks the LibTorch: `system` (the default) is Debian's
# 1.13 for CPUs, in build/; `wheel` is the one inside the current torch wheel, with CUDA and NCCL,
# pip-installed into build-wheel/venv and built into build-wheel/. `test --torch wheel` builds
# and runs the engine, launcher, trainer and CLI tests there.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
fuzz_build="$root/build-fuzz"
asan_build="$root/build-asan"
tsan_build="$root/build-tsan"
wheel_build="$root/build-wheel"
wheel_venv="$wheel_build/venv"
# Python packages the tests and benches check the studio against (Optuna's samplers, scikit-learn's
# Gaussian process, TensorBoard's event readers and writers, MLflow's and W&B's metric logging),
# pip-installed into a virtual environment of the build's own.
tools_venv="$root/build/pytools"
tools_packages=(optuna==5.0.0 scikit-learn==1.9.1 tensorboard==2.21.0 mlflow-skinny==3.17.2 wandb==0.31.0)
# The torch wheel the GPU build is made and tested with; its LibTorch has CUDA and NCCL.
wheel_torch_version=2.15.0
# The frameworks mlstudio.integrations' callbacks are tested with in that venv (and pytest).
wheel_test_packages=(transformers==5.25.0 accelerate==1.16.0 lightning==2.6.6 pytest==9.2.0)
# GPU architectures the wheel build compiles CUDA code for (A100, H100/H200).
wheel_cuda_archs="8.0;9.0"
# Object files are cached by paths relative to the checkout, so a fresh clone reuses them.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

# Debian 12 packages the studio needs to build, run and test.
packages=(
    cmake ninja-build g++ pkg-config ccache
    qt6-base-dev qt6-charts-dev qt6-svg-dev qt6-qpa-plugins
    libtorch-dev libgloo-dev python3-torch libopenblas0-pthread
    libsqlite3-dev libsqlitecpp-dev nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev
    libeigen3-dev zlib1g-dev dataset-fashion-mnist chromium fonts-dejavu-core python3-nbformat
    doctest-dev
    openssh-server openssh-client iproute2 libre2-dev
    clang libclang-rt-14-dev python3-venv
    slurmctld slurmd slurmrestd slurm-client munge slurm-wlm-jwt-plugin
    libprotobuf-dev protobuf-compiler
    dpkg-dev fakeroot lintian appstream desktop-file-utils
    openmpi-bin python3-mpi4py python3-numpy
    dbus-daemon
    libzmq3-dev cppzmq-dev libssl-dev
    python3-ipykernel python3-jupyter-client python3-nbclient python3-pandas python3-matplotlib
    python3-pytest python3-pip git
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

install_python_tools() {
    if [[ ! -x "$tools_venv/bin/python" ]]; then
        mkdir -p "$(dirname "$tools_venv")"
        python3 -m venv "$tools_venv"
    fi
    local check="import optuna, sklearn, tensorboard, mlflow, wandb, sys; sys.exit(optuna.__version__ != '${tools_packages[0]#*==}' or tensorboard.__version__ != '${tools_packages[2]#*==}' or mlflow.__version__ != '${tools_packages[3]#*==}' or wandb.__version__ != '${tools_packages[4]#*==}')"
    if ! "$tools_venv/bin/python" -c "$check" 2>/dev/null; then
        echo "Installing ${tools_packages[*]} into $tools_venv"
        "$tools_venv/bin/pip" install -q --disable-pip-version-check "${tools_packages[@]}"
    fi
}

build_studio() {
    install_python_tools
    if [[ ! -f "$build/build.ninja" ]]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DSTUDIO_TOOLS_PYTHON="$tools_venv/bin/python"
    fi
    cmake --build "$build"
}

# The wheel's torch in a virtual environment of the build's own (the system's Python stays as it
# is); pip's cache makes a second install quick.
install_wheel_torch() {
    if [[ ! -x "$wheel_venv/bin/python" ]]; then
        mkdir -p "$wheel_build"
        python3 -m venv "$wheel_venv"
    fi
    local check="import torch, numpy, sys; sys.exit(torch.__version__.split('+')[0] != '$wheel_torch_version')"
    if ! "$wheel_venv/bin/python" -c "$check" 2>/dev/null; then
        echo "Installing torch==$wheel_torch_version into $wheel_venv"
        "$wheel_venv/bin/pip" install -q --disable-pip-version-check \
            "torch==$wheel_torch_version" numpy
    fi
    check="import sys, transformers, accelerate, lightning, pytest
got = [m.__version__ for m in (transformers, accelerate, lightning, pytest)]
sys.exit(got != [p.split('==')[1] for p in sys.argv[1:]])"
    if ! "$wheel_venv/bin/python" -c "$check" "${wheel_test_packages[@]}" 2>/dev/null; then
        echo "Installing ${wheel_test_packages[*]} into $wheel_venv"
        "$wheel_venv/bin/pip" install -q --disable-pip-version-check "${wheel_test_packages[@]}"
    fi
}

# The CUDA toolkit (nvcc and headers) the wheel's CMake files ask for; no GPU is needed.
cuda_toolkit() {
    local dir
    for dir in "${CUDA_HOME:-}" /usr/local/cuda; do
        if [[ -n "$dir" && -x "$dir/bin/nvcc" ]]; then
            echo "$dir"
            return 0
        fi
    done
    echo "studio.sh: --torch wheel needs the CUDA toolkit (nvcc): set CUDA_HOME" >&2
    return 1
}

# The GPU build: no studio window unless GUI=ON (run on a display asks for it; it stays on).
build_wheel() {
    local gui=$1
    shift
    install_wheel_torch
    if [[ ! -f "$wheel_build/build.ninja" ]]; then
        local cuda prefix
        cuda=$(cuda_toolkit)
        prefix=$("$wheel_venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
        cmake -S "$root" -B "$wheel_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_PREFIX_PATH="$prefix" -DSTUDIO_CUDA=ON -DSTUDIO_PYTHON="$wheel_venv/bin/python" \
            -DCUDAToolkit_ROOT="$cuda" -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" \
            -DTORCH_CUDA_ARCH_LIST="$wheel_cuda_archs" -DSTUDIO_GUI=OFF
    fi
    if [[ $gui == ON ]]; then
        cmake -S "$root" -B "$wheel_build" -DSTUDIO_GUI=ON >/dev/null
    fi
    cmake --build "$wheel_build" "$@"
}

# What `test --torch wheel` builds and runs: the engine, launcher, trainer and CLI.
wheel_tests=(test_wire test_spec test_store test_control test_launcher test_train_core
    test_launcher_process test_jobs test_cli test_trainer test_pipeline test_studio_train
    test_builtin_jobs test_gpu_training bench_gradient_sync bench_trainer)
# ... and the tests that are Python scripts (nothing to build): Trainer and Lightning callbacks.
wheel_python_tests=(test_callbacks)

wheel_test_suite() {
    build_wheel OFF --target studio-launcher studio-train mlstudio "${wheel_tests[@]}"
    local pattern
    pattern="^($(IFS='|'; echo "${wheel_tests[*]}|${wheel_python_tests[*]}"))\$"
    (cd "$wheel_build" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -R "$pattern")
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
    test_lost_jobs test_secrets test_imds_poller test_faults test_hostile_user test_disk_full
    test_tuning_spec test_tune_search test_tuning_jobs test_mpi_launch test_mpi_jobs)

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
    test_disk_full test_secrets test_tuning_jobs)
tsan_suite() {
    sanitized_run "$tsan_build" STUDIO_TSAN "-O1 -g1" \
        "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp" \
        "${tsan_tests[@]}"
}

# Runs the named benches (all this build has when none is named) in full, one after another,
# then prints the table. A bench's report and log land in build/bench/out/; a bench that fails
# a check (or ends with no report) shows as FAILED in the table and makes the command fail.
bench_suite() {
    local out="$build/bench/out" names=("$@") failed=0
    if ((${#names[@]} == 0)); then
        mapfile -t names < <(grep -v '^$' "$build/bench/benches.txt")
    fi
    mkdir -p "$out"
    cmake --build "$build" --target "${names[@]}"
    local statuses="$out/statuses.json" i=0
    [[ -f $statuses ]] || echo '{}' >"$statuses"
    for name in "${names[@]}"; do
        i=$((i + 1))
        local started=$SECONDS rc=0
        printf '[%d/%d] %s ... ' "$i" "${#names[@]}" "$name"
        rm -f "$out/$name.json"
        QT_QPA_PLATFORM=offscreen "$build/bin/$name" --json "$out/$name.json" \
            >"$out/$name.log" 2>&1 || rc=$?
        printf '%s in %d s\n' "$([[ $rc == 0 ]] && echo ok || echo "FAILED (exit $rc, see $out/$name.log)")" \
            $((SECONDS - started))
        ((rc == 0)) || failed=1
        python3 - "$statuses" "$name" "$rc" $((SECONDS - started)) <<'PY'
import datetime, json, sys
path, name, rc, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with open(path) as f:
    statuses = json.load(f)
statuses[name] = {"exit": rc, "seconds": seconds,
                  "ended": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")}
with open(path, "w") as f:
    json.dump(statuses, f, indent=2)
PY
    done
    python3 "$root/tests/bench/bench_table.py" "$out" --results "$build/bench/results.json" \
        --markdown "$root/docs/benchmarks.md"
    echo "Reports: $build/bench/results.json; the table: $root/docs/benchmarks.md"
    return $failed
}

headless_demo() {
    echo "No display: running the example job headless."
    "$build/bin/mlstudio" run "$root/resources/examples/pytorch-ddp-script.json"
    local home=${MLSTUDIO_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/mlstudio}
    echo "Results are in $home (database studio.db, jobs/ for logs, checkpoints and models)."
    echo "Try: $build/bin/mlstudio list jobs    $build/bin/mlstudio show pytorch-ddp-script"
}

command=${1:-}
shift || true
torch=system
if [[ "${1:-}" == --torch ]]; then
    torch=${2:-}
    shift 2 || true
fi
case "$torch" in
system | wheel) ;;
*)
    echo "studio.sh: --torch takes system or wheel, not '$torch'" >&2
    exit 2
    ;;
esac
if [[ $torch == wheel ]]; then
    build="$wheel_build"
fi

case "$command" in
run)
    install_missing
    display=${DISPLAY:-}${WAYLAND_DISPLAY:-}
    if [[ $torch == wheel ]]; then
        build_wheel "$([[ -n $display ]] && echo ON || echo OFF)" \
            --target studio-train studio-launcher mlstudio
        "$build/bin/studio-train" --probe
    else
        build_studio
    fi
    if [[ -n $display ]]; then
        exec "$build/bin/mlstudio" studio
    fi
    headless_demo
    ;;
test)
    install_missing
    if [[ $torch == wheel ]]; then
        wheel_test_suite
        exit 0
    fi
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
bench)
    install_missing
    build_studio
    bench_suite "$@"
    ;;
tsan)
    install_missing
    tsan_suite
    ;;
fuzz)
    install_missing
    fuzz_suite "${1:-300}"
    ;;
deb)
    install_missing
    build_studio
    rm -f "$build"/packages/mlstudio_*_amd64.deb
    (cd "$build" && cpack -G DEB)
    deb=("$build"/packages/mlstudio_*_amd64.deb)
    lintian --fail-on error "${deb[@]}"
    echo "The package: ${deb[*]} (sudo apt install ${deb[*]})"
    ;;
*)
    echo "usage: $0 run|test [--torch system|wheel] | bench [NAME...] | sanitize | tsan | fuzz [SECONDS] | deb" >&2
    exit 2
    ;;
esac
