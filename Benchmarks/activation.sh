#!/usr/bin/env bash
# Activation figures (release build, loopback sandbox):
#   - the sandbox's own ceiling (wrk, same connection count) next to batch activations/s
#     at concurrency 1, 4, 8, 16 (every transfer on the one transport thread), and a Python
#     requests.Session + sqlite3 handler;
#   - one cold `tokenctl activate` next to one curl POST and a shell handler
#     (sqlite3 lookup + curl + sqlite3 insert);
#   - libcurl vs URLSession requests/s on the same server and connection counts;
#   - peak RSS of a long batch.
#
#   Benchmarks/activation.sh <release build dir> [batch lines] [RSS batch lines]
set -euo pipefail
bin=$(cd "${1:?usage: activation.sh <release build dir> [lines] [rss lines]}" && pwd)
lines=${2:-20000}
rss_lines=${3:-200000}
work=$(mktemp -d)
sandbox_pid=
cleanup() { [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work" TOKENCTL_LOG_LEVEL=error
. "$(dirname "$0")/common.sh"
install_tools hyperfine wrk
start_sandbox
echo "sandbox at $url (its log discarded to keep it fast)"

passes "$lines" SN > "$work/passes.csv"
deeplinks "$lines" SN > "$work/batch.txt"
write_post_lua

echo
batch_rate() { # concurrency -> activations per second
  fresh_db "$work/passes.csv"
  local start end
  start=$(date +%s.%N)
  "$bin/tokenctl" activate --batch "$work/batch.txt" --concurrency "$1" > "$work/summary.txt" || true
  end=$(date +%s.%N)
  grep -q "APPROVED $lines" "$work/summary.txt" || { echo "bench: a batch did not approve every line:" >&2; cat "$work/summary.txt" >&2; }
  python3 -c "print(round($lines / ($end - $start)))"
}
printf '%-12s %16s %18s %8s\n' concurrency "tokenctl /s" "sandbox ceiling/s" "%"
for c in 1 4 8 16; do
  rate=$(batch_rate "$c")
  ceiling=$(wrk -t"$(( c < 2 ? 1 : 2 ))" -c"$c" -d4s -s "$work/post.lua" "$endpoint" | awk '/Requests\/sec/ {print int($2)}')
  printf '%-12s %16s %18s %7s%%\n' "$c" "$rate" "$ceiling" "$(python3 -c "print(round(100 * $rate / $ceiling))")"
done

echo
echo "== libcurl (CurlTransport) vs URLSession (FoundationNetworking): the same POST, $lines requests per run"
"$bin/TransportBenchmark" "$endpoint" "$lines" 1 4 8 16

echo
echo "== Python requests.Session + sqlite3 handler, same $lines lines (sequential)"
fresh_db "$work/passes.csv"
python3 "$(dirname "$0")/python_handler.py" "$work/db.sqlite" "$url" "$work/batch.txt"

echo
echo "== one activation, cold process (every run sends: the pass is DECLINED and stays activatable)"
fresh_db <(printf 'serialNumber,deviceAccountIdentifier\nSNONE,SBXDECLINED000001\n')
sqlite3 "$work/db.sqlite" "CREATE TABLE shell_audit (serial TEXT, answer TEXT)"
export DB="$work/db.sqlite" URL="$url"
hyperfine -N -i --warmup 5 --runs 100 --export-json "$work/single.json" \
  "$bin/tokenctl activate mybank://activate?serialNumber=SNONE" \
  "curl -s -o /dev/null -X POST -H Content-Type:application/json -d {\"tokenUniqueReference\":\"SBXDECLINED000001\"} $endpoint" \
  "$(dirname "$0")/shell-handler.sh mybank://activate?serialNumber=SNONE" > /dev/null 2>&1
python3 - "$work/single.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    name = r["command"].split("/")[-1][:60]
    print(f"  {name:62s} median {r['median'] * 1000:6.1f} ms  mean {r['mean'] * 1000:6.1f} ms")
PY

echo
echo "== peak memory of a $rss_lines-line batch"
passes "$rss_lines" RS > "$work/rss.csv"
deeplinks "$rss_lines" RS > "$work/rss.txt"
fresh_db "$work/rss.csv"
/usr/bin/time -f "  wall %e s, peak RSS %M KiB" "$bin/tokenctl" activate --batch "$work/rss.txt" --concurrency 8
