#!/usr/bin/env bash
# Identity verification figures (release build), against `tokenctl sandbox` with its
# background steps at once (--verification-step-seconds 0), so only the client's own work
# and the loopback exchanges are measured:
#   - one whole verification as single commands: requests sent and wall time, next to
#     `tokenctl verification status` alone (one process start, one request) for scale;
#   - peak RSS of `documents submit` with four 1 MiB images, next to `verification status`.
#
#   Benchmarks/verification.sh <release build dir> [runs]
set -euo pipefail
bin=$(cd "${1:?usage: verification.sh <release build dir> [runs]}" && pwd)
runs=${2:-5}
work=$(mktemp -d)
sandbox_pid=
trap '[ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null; rm -rf "$work"' EXIT
export HOME="$work"
(umask 077; echo 1357 > "$work/pin")

"$bin/tokenctl" sandbox --port 0 --powerauth-dir "$work/sandbox" --verification-step-seconds 0 > "$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^powerauth client configuration' "$work/sandbox.log" 2>/dev/null && break; sleep 0.05; done
config="$work/sandbox/client-config.json"
for side in front back passport; do printf '\377\330\377\340 %s \377\331' "$side" > "$work/$side.jpg"; done
for name in a b c d; do head -c 1048572 /dev/urandom | cat <(printf '\377\330') - <(printf '\377\331') > "$work/$name-1mib.jpg"; done

now_ms() { date +%s%3N; }
requests() { grep -c '^POST ' "$work/sandbox.log" || true; }

# One user: onboarding, then the verification under the clock.
user() {
    export TOKENCTL_DATABASE_PATH="$work/$1.sqlite"
    t() { "$bin/tokenctl" --config "$config" "$@"; }
    t onboarding start --credentials "{\"email\":\"$1@example.com\"}" > /dev/null
    t onboarding activate --otp "$(t onboarding otp)" --pin-file "$work/pin" > /dev/null
}

verify() {
    t verification status > /dev/null
    t verification consent > /dev/null
    t verification consent --approve > /dev/null
    t verification documents select ID_CARD PASSPORT > /dev/null
    t verification documents submit --id-card-front "$work/front.jpg" --id-card-back "$work/back.jpg" --passport "$work/passport.jpg" > /dev/null
    t verification status > /dev/null
    t verification presence-check start > /dev/null
    t verification presence-check done > /dev/null
    t verification status > /dev/null
    t verification otp verify "$(t verification otp show)" > /dev/null
    t verification status | grep -q 'state *success'
}

echo "== one whole verification as 13 single commands (status, consent, approve, select, submit, status,"
echo "   presence check start and done, status, otp show, otp verify, status; the sandbox's steps at once)"
for run in $(seq "$runs"); do
    user "u$run"
    before=$(requests); start=$(now_ms)
    verify
    end=$(now_ms); after=$(requests)
    echo "  run $run: $((after - before)) requests (one creates the MAC token), $((end - start)) ms"
done
start=$(now_ms)
for _ in $(seq 10); do t verification status > /dev/null; done
echo "  for scale, verification status alone: $(( ($(now_ms) - start) / 10 )) ms per command (1 request)"

echo
echo "== peak memory: documents submit of four 1 MiB images (ID card front and back, passport, driving licence)"
user rss
t verification status > /dev/null
t verification consent --approve > /dev/null
t verification documents select ID_CARD PASSPORT DRIVING_LICENSE > /dev/null
/usr/bin/time -f "  submit: wall %e s, peak RSS %M KiB" "$bin/tokenctl" --config "$config" verification documents submit \
    --id-card-front "$work/a-1mib.jpg" --id-card-back "$work/b-1mib.jpg" --passport "$work/c-1mib.jpg" --driving-license "$work/d-1mib.jpg" > /dev/null
/usr/bin/time -f "  for scale, verification status: wall %e s, peak RSS %M KiB" "$bin/tokenctl" --config "$config" verification status > /dev/null
