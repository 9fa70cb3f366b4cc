#!/bin/bash
# A new book's first `cargo build` from a clean target: how long a crate that `litbook init` made
# takes to build when nothing is compiled yet, with the tangler from each literate source directory
# given, side by side (the rounds alternate between them), and the median of the rounds for each.
#
# Usage, from the repository (the registry's crates downloaded once before, so that no round
# downloads):
#
#     bash src/litbook/measure/first_build.sh ROUNDS LITBOOK_DIR...
#
# For instance the tangler before and after a change, the one before checked out beside:
#
#     git worktree add /tmp/before HEAD~1
#     bash src/litbook/measure/first_build.sh 3 /tmp/before/src/litbook src/litbook
set -euo pipefail

rounds=$1
shift
dirs=()
for dir in "$@"; do
    dirs+=("$(realpath "$dir")")
done
literate_bin=$(cargo build --quiet --package litbook --message-format=json |
    sed -n 's/.*"executable":"\([^"]*\/litbook\)".*/\1/p' | tail -n 1)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# One new book for each tangler: `cargo new`, `litbook init`, and the build dependency pointed at
# that tangler's directory, as `litbook init` writes it (without the tools).
books=()
for i in "${!dirs[@]}"; do
    dir=${dirs[$i]}
    book="$scratch/book$i"
    cargo new --quiet --lib "$book"
    (cd "$book" && "$literate_bin" init > /dev/null)
    sed -i "s|^litbook = .*|litbook = { path = \"$dir\", default-features = false }|" "$book/Cargo.toml"
    (cd "$book" && cargo generate-lockfile --quiet)
    books+=("$book")
done

declare -A times
for round in $(seq "$rounds"); do
    for i in "${!books[@]}"; do
        book=${books[$i]}
        rm -rf "$book/target"
        start=$(date +%s.%N)
        (cd "$book" && cargo build --quiet)
        end=$(date +%s.%N)
        times[$i]+="$(echo "$end - $start" | bc) "
    done
done

for i in "${!books[@]}"; do
    literate_dir=${dirs[$i]}
    crates=$(cd "${books[$i]}" && cargo tree --edges normal,build --prefix none | sort -u | wc -l)
    median=$(echo "${times[$i]}" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "$literate_dir: median ${median} s of ${times[$i]}($crates packages in the build)"
done
