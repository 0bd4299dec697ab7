#!/usr/bin/env bash
# The handler path end to end: a tokenctl sandbox on a free loopback port, a temporary
# database with the example passes, and Deeplinks/tokenctl-handler run on each example
# deeplink; each exit code is checked against the documented one.
set -euo pipefail
tokenctl=$(cd "$(dirname "${1:-tokenctl}")" && pwd)/$(basename "${1:-tokenctl}")
here=$(cd "$(dirname "$0")" && pwd)
workdir=$(mktemp -d)
sandbox_pid=
cleanup() { [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null; rm -rf "$workdir"; }
trap cleanup EXIT

"$tokenctl" sandbox --port 0 > "$workdir/sandbox.log" &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^listening ' "$workdir/sandbox.log" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening //p' "$workdir/sandbox.log")
export TOKENCTL_DATABASE_PATH="$workdir/tokenctl.sqlite" TOKENCTL_TMP_BASE_URL="$url" TOKENCTL="$tokenctl"
echo "sandbox: $url"
"$tokenctl" wallet import "$here/example-passes.csv"

failures=0
while IFS=$'\t' read -r deeplink outcome expected; do
    [ -n "$deeplink" ] || continue
    set +e
    json=$("$here/tokenctl-handler" "$deeplink" 2>/dev/null)
    status=$?
    set -e
    got=$(printf '%s' "$json" | sed -n 's/.*"outcome": "\([A-Z_]*\)".*/\1/p')
    if [ "$status" = "$expected" ] && [ "$got" = "$outcome" ]; then mark=ok; else mark=FAIL; failures=$((failures + 1)); fi
    printf '%-4s exit %-3s %-18s (documented: exit %s, %s)\n' "$mark" "$status" "$got" "$expected" "$outcome"
done < "$here/example-deeplinks.txt"

echo
"$tokenctl" audit list
"$tokenctl" audit verify
exit "$failures"
