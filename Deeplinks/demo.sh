#!/usr/bin/env bash
# The handler path end to end: a tokenctl sandbox on a free loopback port, a temporary
# database with the example passes, and Deeplinks/tokenctl-handler run on each example
# deeplink; each exit code is checked against the documented one. Then the same again
# through `tokenctl serve` on a fresh database: the handler posts to the service's socket.
set -euo pipefail
tokenctl=$(cd "$(dirname "${1:-tokenctl}")" && pwd)/$(basename "${1:-tokenctl}")
here=$(cd "$(dirname "$0")" && pwd)
workdir=$(mktemp -d)
sandbox_pid=
service_pid=
cleanup() {
    [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null
    [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null
    rm -rf "$workdir"
}
trap cleanup EXIT

"$tokenctl" sandbox --port 0 > "$workdir/sandbox.log" &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^listening ' "$workdir/sandbox.log" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening //p' "$workdir/sandbox.log")
# No service listens on this socket yet: the handler runs tokenctl activate.
export TOKENCTL_DATABASE_PATH="$workdir/tokenctl.sqlite" TOKENCTL_TMP_BASE_URL="$url" TOKENCTL="$tokenctl" \
    TOKENCTL_SERVICE_SOCKET="$workdir/run/tokenctl.sock"
echo "sandbox: $url"
"$tokenctl" wallet import "$here/example-passes.csv"

failures=0
run_examples() {
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
}
run_examples
echo
"$tokenctl" audit list
"$tokenctl" audit verify

echo
echo "== the same deeplinks through the handler and tokenctl serve (a fresh database)"
export TOKENCTL_DATABASE_PATH="$workdir/service.sqlite"
"$tokenctl" wallet import "$here/example-passes.csv"
"$tokenctl" serve --socket "$TOKENCTL_SERVICE_SOCKET" > "$workdir/serve.log" 2>&1 &
service_pid=$!
for _ in $(seq 200); do grep -q '^listening ' "$workdir/serve.log" 2>/dev/null && break; sleep 0.05; done
sed -n 's/^listening /service: /p' "$workdir/serve.log"
run_examples
echo
curl -s --unix-socket "$TOKENCTL_SERVICE_SOCKET" http://localhost/metrics | grep -E '^tokenctl_(activations_total|tmp_connections_opened_total)' | grep -v ' 0$'
kill "$service_pid"
wait "$service_pid" && echo "service: stopped (exit 0)"
service_pid=
"$tokenctl" audit verify
exit "$failures"
