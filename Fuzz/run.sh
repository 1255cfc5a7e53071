#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz` / `make fuzz-smoke` (docs/fuzzing.md).
#
#   Fuzz/run.sh smoke [target...]   each target for FUZZ_SMOKE_SECONDS (3) from the committed corpus, seed 1;
#                                   what `make test` runs. New inputs go to a scratch directory that is removed.
#   Fuzz/run.sh long  [target...]   each target for FUZZ_SECONDS (60), or FUZZ_RUNS inputs when set, from the
#                                   committed corpus and a working corpus in Fuzz/.build/corpus/<target>/ that grows
#                                   from run to run. FUZZ_ARGS adds libFuzzer options (-jobs, -dict, ...).
#
# A crash, a timeout (an input taking more than FUZZ_TIMEOUT seconds, 10) or a leak stops the run: the input is
# saved as Fuzz/.build/crashes/<target>/crash-<sha1> and the script exits non-zero with the command that
# reproduces it. Each target's last libFuzzer line (inputs, coverage, exec/s) is printed in a summary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

mode=${1:-}
shift || true
case "$mode" in smoke | long) ;; *)
    echo "usage: Fuzz/run.sh smoke|long [target...]" >&2
    exit 2
    ;;
esac
all_targets=(att l2cap hci advertising ota console rig profile)
targets=("${@:-${all_targets[@]}}")
bin=".build/release"
[ -d "$bin" ] || bin=$(ls -d .build/*-linux-gnu/release 2>/dev/null | head -1)
logs=.build/logs
mkdir -p "$logs"
summary=()
status=0
for target in "${targets[@]}"; do
    exe="$bin/fuzz-$target"
    seeds="Corpus/$target"
    [ -x "$exe" ] || { echo "fuzz: no $exe; build first (make fuzz or make fuzz-smoke)" >&2; exit 2; }
    [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds/" >&2; exit 2; }
    crashes=".build/crashes/$target"
    mkdir -p "$crashes"
    options=(-timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1 -artifact_prefix="$crashes/")
    if [ "$mode" = smoke ]; then
        work=$(mktemp -d "${TMPDIR:-/tmp}/blerig-fuzz-$target.XXXXXX")
        options+=(-seed=1 -max_total_time="${FUZZ_SMOKE_SECONDS:-3}")
    else
        work=".build/corpus/$target"
        mkdir -p "$work"
        if [ -n "${FUZZ_RUNS:-}" ]; then
            options+=(-runs="$FUZZ_RUNS")
        else
            options+=(-max_total_time="${FUZZ_SECONDS:-60}")
        fi
    fi
    log="$logs/$mode-$target.log"
    # The first corpus directory receives new inputs: the scratch or working one, never the committed seeds.
    # shellcheck disable=SC2086
    if SWIFT_BACKTRACE=enable=no "$exe" "${options[@]}" ${FUZZ_ARGS:-} "$work" "$seeds" >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (exit $?)"
        status=1
    fi
    [ "$mode" = smoke ] && rm -rf "$work"
    # Without coverage counters libFuzzer only feeds random bytes; that is a broken build, not a pass.
    if ! grep -q '^INFO: Loaded [0-9]* modules' "$log"; then
        result="FAILED (not instrumented for coverage: no counters loaded)"
        status=1
    fi
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    summary+=("$(printf '%-12s %-18s %s (%ss)' "fuzz-$target" "$result" "$last" "${seconds:-?}")")
    echo "${summary[-1]}"
    if [ "$result" != ok ]; then
        grep -E 'ERROR|Fatal error|invariant broken|SUMMARY' "$log" | head -5 >&2 || true
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        echo "fuzz-$target: log $PWD/$log" >&2
        [ -n "$artifact" ] && echo "fuzz-$target: reproduce with Fuzz/$bin/fuzz-$target Fuzz/$artifact" >&2
    fi
done
echo "fuzz $mode summary:"
printf '  %s\n' "${summary[@]}"
exit $status
