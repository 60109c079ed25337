#!/usr/bin/env bash
# The README's two commands timed as a new user meets them: a fresh clone
# of HEAD with an empty target folder (the crate cache as it is), command 1,
# then command 2 split into its build and each test binary, in CPU-seconds
# (user + system) and wall. The README's "Build times" quotes its output.
# Usage: scripts/readme-time.sh [WORKDIR]  (default: a new temporary folder)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
git clone -q "$repo" "$work/clone"
cd "$work/clone"
t="$work/time"
row() { # label, then the command
    local label=$1; shift
    /usr/bin/time -f "%U %S %e" -o "$t" "$@" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    read -r user sys wall <"$t"
    printf '| %s | %.0f | %.0f |\n' "$label" "$(echo "$user + $sys" | bc)" "$wall"
}
echo "| step | CPU-s | wall s |"
echo "|---|---|---|"
row 'command 1: `cargo run --release -- run scenarios/quickstart.toml`' \
    cargo run --release -- run scenarios/quickstart.toml
row 'command 2, its build (`--no-run`)' cargo test --workspace --release --no-run
# Each test binary as cargo test runs it: from its package's folder.
cargo test --workspace --release --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"], m["manifest_path"].rsplit("/", 1)[0], m["target"]["name"], m["target"]["kind"][0])
' | sort -u -k3,3 -k4,4 >"$work/bins"
while read -r exe dir name kind; do
    (cd "$dir" && row "test binary \`$name\` ($kind)" "$exe")
done <"$work/bins"
row 'doc tests (`cargo test --workspace --release --doc`)' cargo test --workspace --release --doc
