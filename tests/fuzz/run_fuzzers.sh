#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a fixed time and summarises the runs:
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET OUT_JSON
# A target is a folder of seeds, tests/fuzz/corpus/<name>/, and the program BUILD_DIR/fuzz_<name>
# (dictionary: tests/fuzz/dict/<name>.dict when present). Each runs on its own corpus under
# BUILD_DIR/corpus/<name>/: the seeds copied in, plus what earlier runs found, so the repository
# is never written and later runs start where earlier ones stopped. Crash inputs land in
# BUILD_DIR/artifacts/<name>/, full logs in BUILD_DIR/logs/<name>.log.
# Writes {"targets":[{"name","seconds","executions","coverage","features","corpus","crashed"}]}
# to OUT_JSON, prints a table, and exits 1 when any target crashed, leaked, ran out of memory or
# hung (the reproducer's path is printed).
set -uo pipefail

if (($# != 3)) || ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < 1)); then
    echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET OUT_JSON" >&2
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
seconds=$2
out_json=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Time to load a grown corpus and write the final statistics; past it the run counts as hung.
margin=30

# Undefined behaviour and leaks stop a run as a crash does, with a stack to read.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# "name value" for libFuzzer's final "stat::<name>: value" line; 0 when absent.
final_stat() {
    local v
    v=$(grep -Eo "^stat::$1: *[0-9]+" "$2" | tail -n 1 | grep -Eo '[0-9]+$')
    echo "${v:-0}"
}

# A field ("cov", "ft", "corp") of the last status line "#N ... cov: C ft: F corp: U/S ...".
last_status() {
    local v
    v=$(grep -E '^#[0-9]+' "$2" | grep -Eo "$1: [0-9]+" | tail -n 1 | grep -Eo '[0-9]+$')
    echo "${v:-0}"
}

# What ended a failed run, from the sanitizer's or libFuzzer's own report.
failure_kind() {
    if grep -q 'ERROR: libFuzzer: timeout' "$1"; then
        echo "timeout"
    elif grep -q 'ERROR: LeakSanitizer' "$1"; then
        echo "leak"
    elif grep -qE 'ERROR: libFuzzer: (out-of-memory|malloc limit)' "$1"; then
        echo "out-of-memory"
    else
        echo "crash"
    fi
}

mkdir -p "$build/artifacts" "$build/logs" "$build/corpus"
entries=()
rows=()
failed=0
for seeds in "$here"/corpus/*/; do
    name=$(basename "$seeds")
    binary="$build/fuzz_$name"
    log="$build/logs/$name.log"
    work="$build/corpus/$name"
    artifacts="$build/artifacts/$name/"
    if [[ ! -x $binary ]]; then
        echo "missing $binary: build $build first" >&2
        exit 2
    fi
    mkdir -p "$work" "$artifacts"
    cp -f "$seeds"* "$work"/
    dict=()
    [[ -f $here/dict/$name.dict ]] && dict=("-dict=$here/dict/$name.dict")
    echo "fuzz_$name: ${seconds} s"
    started=$SECONDS
    timeout --signal=INT --kill-after=10 $((seconds + margin)) \
        "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$artifacts" "${dict[@]}" "$work" >"$log" 2>&1
    rc=$?
    elapsed=$((SECONDS - started))
    executions=$(final_stat number_of_executed_units "$log")
    coverage=$(last_status cov "$log")
    features=$(last_status ft "$log")
    corpus=$(last_status corp "$log")
    crashed=false
    outcome="ok"
    if ((rc == 124 || rc == 137)); then
        crashed=true
        outcome="hung (killed after $((seconds + margin)) s)"
    elif ((rc != 0)); then
        crashed=true
        outcome=$(failure_kind "$log")
        artifact=$(grep -Eo 'Test unit written to [^ ]+' "$log" | tail -n 1 | cut -d' ' -f5)
        outcome+=" ${artifact:-(no reproducer written)}"
    fi
    if [[ $crashed == true ]]; then
        failed=1
        echo "fuzz_$name FAILED: $outcome; log: $log" >&2
        grep -E -m 5 'ERROR: |runtime error:|invariant broken' "$log" >&2
    fi
    entries+=("$(printf '{"name":"%s","seconds":%d,"executions":%s,"coverage":%s,"features":%s,"corpus":%s,"crashed":%s}' \
        "$name" "$elapsed" "$executions" "$coverage" "$features" "$corpus" "$crashed")")
    rows+=("$(printf '%-10s %7d %12s %8s %9s %7s  %s' \
        "$name" "$elapsed" "$executions" "$coverage" "$features" "$corpus" "$outcome")")
done

mkdir -p "$(dirname "$out_json")"
{
    printf '{"targets":[\n'
    for i in "${!entries[@]}"; do
        printf '  %s%s\n' "${entries[$i]}" "$( ((i + 1 < ${#entries[@]})) && echo ,)"
    done
    printf ']}\n'
} >"$out_json"

printf '%-10s %7s %12s %8s %9s %7s  %s\n' target seconds executions cov ft corpus result
printf '%s\n' "${rows[@]}"
echo "summary: $out_json"
exit "$failed"
