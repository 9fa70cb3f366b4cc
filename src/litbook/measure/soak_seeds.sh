#!/bin/bash
# Runs the language server's soak with rust-analyzer killed along the way on SEEDS fresh seeds in a
# row, one at a time, each seed drawn from the clock as a developer's run draws it: each seed's
# result and time, then how many passed and the median time. A failing seed's output is kept in
# target/tmp/soak-SEED.log, and belongs among the seeds the test always runs once its bug is fixed.
#
# Usage, from the repository, with rust-analyzer on PATH (bash .ci/run installs it):
#
#     bash src/litbook/measure/soak_seeds.sh 30
set -euo pipefail

seeds=$1
cargo test --quiet -p litbook --test lsp --no-run
built=$(cargo test -p litbook --test lsp --no-run --message-format=json 2>/dev/null |
  jq -r 'select(.reason == "compiler-artifact" and .target.name == "lsp") | .executable // empty')
# A copy of the test as built now, so that rebuilding the test during the run (an hour of it) changes
# nothing soaked; the server it starts is target/debug/litbook, which a build of literate's sources
# would change: build none during the run.
mkdir -p target/tmp
binary=target/tmp/soak-seeds-lsp
cp "$built" "$binary"
passed=0
times=()
for n in $(seq "$seeds"); do
  seed=$(($(date +%s%N) | 1))
  log=target/tmp/soak-$seed.log
  start=$(date +%s)
  if LITBOOK_SOAK_SEED=$seed "$binary" --ignored --exact a_soak_with_rust_analyzer_killed_along_the_way \
    >"$log" 2>&1; then
    result=passed
    passed=$((passed + 1))
    rm "$log"
  else
    result="FAILED (see $log)"
  fi
  took=$(($(date +%s) - start))
  times+=("$took")
  echo "seed $n of $seeds: $seed $result in $took s"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
echo "soak with rust-analyzer killed along the way: $passed of $seeds seeds passed, median $median s a seed"
[ "$passed" -eq "$seeds" ]
