#!/usr/bin/env bash
# The research loop, timed: a one-line change in a controller
# (crates/transport/src/cc/dctcp.rs), then `cargo run` of the quickstart
# under PROFILE, in CPU-seconds (user + system) and wall; the change is
# then undone and timed again. Usage: scripts/loop-time.sh [PROFILE]
# (default `loop`; `release` for the README's profile). Builds PROFILE
# once first, so that only the change is timed. docs/extending.md quotes
# its numbers.
set -euo pipefail
profile="${1:-loop}"
cd "$(dirname "$0")/.."
file=crates/transport/src/cc/dctcp.rs
from='(1.0 - self.alpha / 2.0)'
to='(1.0 - self.alpha / 2.5)'
grep -qF "$from" "$file" || { echo "loop-time: $file no longer holds '$from'" >&2; exit 1; }
backup=$(mktemp)
cp "$file" "$backup"
restore() { cp "$backup" "$file"; rm -f "$backup"; }
trap restore EXIT
out=$(mktemp -d)
cargo build --profile "$profile" --quiet
step() {
    rm -rf "$out/run"
    /usr/bin/time -f "%U %S %e" -o "$out/time" \
        cargo run --quiet --profile "$profile" -- run scenarios/quickstart.toml --out "$out/run" --no-plots >/dev/null
    read -r user sys wall <"$out/time"
    printf '%-10s %-8s %7.1f CPU-s %7.1f s wall\n' "$profile" "$1" "$(echo "$user + $sys" | bc)" "$wall"
}
sed -i "s|$from|$to|" "$file"
step changed
cp "$backup" "$file"
step undone
rm -rf "$out"
