#!/usr/bin/env bash
# The test suite under load (issue 28): `npm test` N times in a row (default 3) while one busy loop
# per core keeps every core busy, stopping at the first failing run. Each run's result and time is
# printed; the loops end with the script.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cores="$(nproc)"
hogs=()
for _ in $(seq "$cores"); do
  node -e 'for (;;) {}' &
  hogs+=("$!")
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
echo "== $cores busy loops running (pids ${hogs[*]})"
for run in $(seq "$runs"); do
  started=$(date +%s)
  if npm test > "test-under-load-$run.log" 2>&1; then verdict=passed; else verdict=FAILED; fi
  echo "== run $run/$runs: $verdict in $(( $(date +%s) - started )) s, load $(cut -d' ' -f1-3 /proc/loadavg) (log: test-under-load-$run.log)"
  [ "$verdict" = passed ] || exit 1
done
