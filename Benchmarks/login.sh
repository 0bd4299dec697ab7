#!/usr/bin/env bash
# PIN login figures (release build): the client's M-Pin crypto as medians (MPinBenchmark),
# then the wall time of `tokenctl login run` against `tokenctl sandbox`, next to
# `tokenctl login status` (the same process start and database open, no network, no crypto).
#
#   Benchmarks/login.sh <release build dir> [runs]
set -euo pipefail
bin=${1:?usage: login.sh <release build dir> [runs]}
runs=${2:-30}
work=$(mktemp -d)
sandbox_pid=
trap '[ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null; rm -rf "$work"' EXIT
export TOKENCTL_DATABASE_PATH="$work/bench.sqlite" HOME="$work"

command -v hyperfine >/dev/null || { echo "bench: installing hyperfine"; apt-get install -y -qq hyperfine >/dev/null 2>&1 || sudo apt-get install -y -qq hyperfine >/dev/null; }

echo "== M-Pin client crypto"
"$bin/MPinBenchmark" 500

"$bin/tokenctl" sandbox --port 0 --powerauth-dir "$work/sandbox" > "$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^powerauth client configuration' "$work/sandbox.log" 2>/dev/null && break; sleep 0.05; done
base=$(sed -n 's/^listening //p' "$work/sandbox.log")
config="$work/sandbox/client-config.json"
(umask 077; echo 2468 > "$work/pin")
"$bin/tokenctl" --config "$config" login register --identity bench@example.com > /dev/null
link=$(curl -s "$base/_sandbox/mpin/email?userId=bench@example.com" | sed 's/.*"link":"\([^"]*\)".*/\1/')
curl -s "$link" > /dev/null
"$bin/tokenctl" --config "$config" login confirm > /dev/null
"$bin/tokenctl" --config "$config" login set-pin --pin-file "$work/pin" > /dev/null
echo
echo "== tokenctl login run against the sandbox (7 requests: authzurl, authorize, codeStatus, pass1, pass2, authenticate, authtoken)"
"$bin/tokenctl" --config "$config" login run --pin-file "$work/pin" --json
hyperfine -N --warmup 3 --runs "$runs" "$bin/tokenctl --config $config login run --pin-file $work/pin" 2>&1 | grep -E "Time|Range"
echo "== for scale: tokenctl login status (no network, no crypto)"
hyperfine -N --warmup 3 --runs "$runs" "$bin/tokenctl --config $config login status" 2>&1 | grep -E "Time|Range"
