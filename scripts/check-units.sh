#!/usr/bin/env bash
# The systemd units of Config/systemd, checked offline (PID 1 need not be systemd):
# `systemd-analyze verify` on each, with the executables pointed at this build, and
# `systemd-analyze security --offline=true` on each service, which must rate ≤ MAX (2.0).
# Usage: scripts/check-units.sh BUILD_DIR   (BUILD_DIR holds tokenctl and tokenctl-serve)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: scripts/check-units.sh BUILD_DIR}" && pwd)
max=${MAX_EXPOSURE:-2.0}
command -v systemd-analyze >/dev/null || { echo "check-units: systemd-analyze is missing (apt-get install systemd)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in Config/systemd/*.service Config/systemd/*.socket Config/systemd/*.timer; do
  sed -e "s#/usr/bin/tokenctl-handler#$PWD/Deeplinks/tokenctl-handler#g" -e "s#/usr/bin/#$build/#g" "$unit" > "$work/$(basename "$unit")"
done

status=0
(cd "$work" && systemd-analyze verify --man=no ./*.service ./*.socket ./*.timer) > "$work/verify.log" 2>&1 || status=$?
if [ "$status" != 0 ] || [ -s "$work/verify.log" ]; then
  cat "$work/verify.log" >&2
  echo "check-units: systemd-analyze verify failed" >&2
  exit 1
fi
echo "check-units: systemd-analyze verify: $(ls Config/systemd | wc -l) units, no finding"

for unit in Config/systemd/*.service; do
  name=$(basename "$unit")
  line=$(cd "$work" && systemd-analyze security --offline=true --no-pager "$name" 2>&1 | grep "Overall exposure level") \
    || { echo "check-units: systemd-analyze security $name gave no rating" >&2; exit 1; }
  rating=$(sed -E 's/.*: ([0-9.]+) .*/\1/' <<<"$line")
  if awk -v r="$rating" -v m="$max" 'BEGIN { exit !(r <= m) }'; then
    echo "check-units: $name exposure $rating (≤ $max)"
  else
    echo "check-units: $name exposure $rating, above $max:" >&2
    (cd "$work" && systemd-analyze security --offline=true --no-pager "$name" | grep "✗") >&2
    status=1
  fi
done
exit $status
