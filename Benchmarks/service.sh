#!/usr/bin/env bash
# `make bench-service`: tokenctl serve side by side with the cold CLI and the shell handler,
# against the sandbox behind a TLS 1.3 terminator with mutual TLS and a user-space delay
# proxy adding a round trip R (R/2 each way, plus R at connect), for R = 0, 20 and 50 ms, and a
# warm activation with TMP on plain HTTP (the budget's path).
# Then throughput: 64 keep-alive clients (wrk, loopback TCP) against the CLI batch at
# concurrency 8, at R = 0 and 20 ms; paced load at 25% and 50% of the service's capacity, its
# p50/p99 beside TMP's own at the same rate (DESIGN §5's budget: p99 at most 3 ms above TMP's);
# TMP connections opened; RSS over 100,000 activations.
#   Benchmarks/service.sh BIN_DIR
set -euo pipefail
bin=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# shellcheck source=Benchmarks/common.sh
. "$here/common.sh"
install_tools hyperfine wrk sqlite3 openssl
row() { printf '  %-46s %10s %10s %10s   %s\n' "$@"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

# Certificates: a CA, the terminator's (127.0.0.1) and the client's.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench-ca \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
for name in server client; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" -keyout "$work/$name.key" -out "$work/$name.csr" 2>/dev/null
  openssl x509 -req -in "$work/$name.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
    -extfile <(printf 'subjectAltName=IP:127.0.0.1\n') -out "$work/$name.pem" 2>/dev/null
done
chmod 600 "$work"/*.key

start_sandbox
pids+=("$sandbox_pid")
python3 "$root/Tests/tokenctlTests/Fixtures/tls_terminator.py" --cert "$work/server.pem" --key "$work/server.key" \
  --upstream "${url##*:}" --client-ca "$work/ca.pem" > "$work/tls.log" &
pids+=($!)
for _ in $(seq 100); do grep -q '^listening ' "$work/tls.log" 2>/dev/null && break; sleep 0.05; done
tls_port=$(sed -n 's/^listening //p' "$work/tls.log")
export TOKENCTL_TMP_TLS_CA_FILE="$work/ca.pem" TOKENCTL_TMP_TLS_CLIENT_CERT_FILE="$work/client.pem" \
  TOKENCTL_TMP_TLS_CLIENT_KEY_FILE="$work/client.key" TOKENCTL_SERVICE_SOCKET="$work/run/tokenctl.sock"
export CURL_TLS="--cacert $work/ca.pem --cert $work/client.pem --key $work/client.key"

# Starts a delay proxy of R ms in front of the terminator; sets proxy_port.
start_proxy() {
  python3 "$here/delay_proxy.py" --upstream "$tls_port" --rtt-ms "$1" > "$work/proxy-$1.log" &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^listening ' "$work/proxy-$1.log" 2>/dev/null && break; sleep 0.05; done
  proxy_port=$(sed -n 's/^listening //p' "$work/proxy-$1.log")
}
# Starts tokenctl serve with extra arguments; sets service_pid.
start_service() {
  rm -f "$work/serve.log"
  "$bin/tokenctl" serve --socket "$TOKENCTL_SERVICE_SOCKET" "$@" > "$work/serve.log" 2> "$work/serve.err" &
  service_pid=$!
  for _ in $(seq 200); do grep -q '^listening ' "$work/serve.log" 2>/dev/null && break; sleep 0.05; done
}
stop_service() { kill "$service_pid"; wait "$service_pid" || true; }
metric() { curl -s --unix-socket "$TOKENCTL_SERVICE_SOCKET" http://localhost/metrics | awk -v name="$1" '$1 == name { print $2 }'; }
median_of() { awk '{ print $1 }'; }

echo "== single activations through the TLS terminator (mutual TLS) and a delay proxy of R ms"
row "path (median ms)" "R=0" "R=20" "R=50" "target"
declare -A warm handler cold shell
for rtt in 0 20 50; do
  start_proxy "$rtt"
  export TOKENCTL_TMP_BASE_URL="https://127.0.0.1:$proxy_port" URL="https://127.0.0.1:$proxy_port"
  runs=$([ "$rtt" = 0 ] && echo 200 || echo 40)
  fresh_db <(passes $((4 * runs)) "SNR${rtt}X")
  sqlite3 "$work/db.sqlite" "CREATE TABLE shell_audit (serial TEXT, answer TEXT)"
  export DB="$work/db.sqlite"
  start_service
  deeplinks $((4 * runs)) "SNR${rtt}X" > "$work/all.txt"
  sed -n "1,${runs}p" "$work/all.txt" > "$work/warm.txt"
  sed -n "$((runs + 1)),$((2 * runs))p" "$work/all.txt" > "$work/handler.txt"
  sed -n "$((2 * runs + 1)),$((3 * runs))p" "$work/all.txt" > "$work/cold.txt"
  sed -n "$((3 * runs + 1)),$((4 * runs))p" "$work/all.txt" > "$work/shell.txt"
  # One warm-up request opens the service's first TMP connection.
  echo "mybank://activate?serialNumber=NOTHERE" | python3 "$here/service_client.py" "$TOKENCTL_SERVICE_SOCKET" > /dev/null
  warm[$rtt]=$(python3 "$here/service_client.py" "$TOKENCTL_SERVICE_SOCKET" < "$work/warm.txt" | median_of)
  handler[$rtt]=$(TOKENCTL="$bin/tokenctl" python3 "$here/time_runs.py" "$root/Deeplinks/tokenctl-handler" < "$work/handler.txt" | median_of)
  stop_service
  cold[$rtt]=$(python3 "$here/time_runs.py" "$bin/tokenctl" activate < "$work/cold.txt" | median_of)
  shell[$rtt]=$(python3 "$here/time_runs.py" "$here/shell-handler.sh" < "$work/shell.txt" | median_of)
done
# The budget's own path (DESIGN §5: a warm activation at a zero round trip): TMP on the sandbox's
# plain HTTP, without the terminator and the proxy, whose Python threads the rows above include.
export TOKENCTL_TMP_BASE_URL="$url"
fresh_db <(passes 200 "SNPLAIN")
start_service
deeplinks 200 "SNPLAIN" > "$work/plain.txt"
echo "mybank://activate?serialNumber=NOTHERE" | python3 "$here/service_client.py" "$TOKENCTL_SERVICE_SOCKET" > /dev/null
plain=$(python3 "$here/service_client.py" "$TOKENCTL_SERVICE_SOCKET" < "$work/plain.txt" | median_of)
stop_service
row "warm service, persistent client" "${warm[0]}" "${warm[20]}" "${warm[50]}" "<= 1 R + 2 ms"
row "warm service, TMP on plain HTTP (no terminator)" "$plain" "" "" "<= 1.0 ms"
row "handler through the socket (curl per deeplink)" "${handler[0]}" "${handler[20]}" "${handler[50]}" "<= 0.6x cold at R=0; >= 3x faster at R=20"
row "cold CLI (tokenctl activate)" "${cold[0]}" "${cold[20]}" "${cold[50]}" "peer"
row "shell handler (sqlite3 + curl + sqlite3)" "${shell[0]}" "${shell[20]}" "${shell[50]}" "peer"
row "handler / cold CLI" "$(ratio "${handler[0]}" "${cold[0]}")" "$(ratio "${handler[20]}" "${cold[20]}")" "$(ratio "${handler[50]}" "${cold[50]}")" ""

echo
echo "== throughput: 64 keep-alive clients (wrk on loopback TCP) against the CLI batch (concurrency 8)"
write_activate_lua
# Two wrk threads; a thread's serials are PREFIX0_N or PREFIX1_N.
throughput_passes() { awk -v p="$1" -v n="$2" 'BEGIN { print "serialNumber,deviceAccountIdentifier"; for (t = 0; t < 2; t++) for (i = 1; i <= n; i++) printf "%s%d_%d,DAPL%d%011d\n", p, t, i, t, i }'; }
for rtt in 0 20; do
  if [ "$rtt" = 0 ]; then export TOKENCTL_TMP_BASE_URL="https://127.0.0.1:$tls_port"; else start_proxy 20; export TOKENCTL_TMP_BASE_URL="https://127.0.0.1:$proxy_port"; fi
  fresh_db <(throughput_passes "W${rtt}P" 200000)
  start_service --listen 127.0.0.1:0
  tcp=$(sed -n 's/^listening \(http:.*\)/\1/p' "$work/serve.log")
  WRK_PREFIX="W${rtt}P" wrk -t 2 -c 64 -d 10s --latency -s "$work/activate.lua" "$tcp" > "$work/wrk-$rtt.txt" 2>&1
  requests=$(awk '/Requests\/sec/ { print $2 }' "$work/wrk-$rtt.txt")
  approved=$(metric 'tokenctl_activations_total{outcome="APPROVED"}')
  p50=$(awk '$1 == "50%" { print $2 }' "$work/wrk-$rtt.txt"); p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk-$rtt.txt")
  opened=$(metric tokenctl_tmp_connections_opened_total)
  stop_service
  activations_per_second=$(python3 -c "print(f'{${approved:-0} / 10:.0f}')")
  echo "  R=$rtt: wrk $requests requests/s (p50 $p50, p99 $p99); $approved APPROVED in 10 s = $activations_per_second activations/s; TMP connections opened: $opened"
  if [ "$rtt" = 0 ]; then
    fresh_db <(passes 20000 "B0X")
    deeplinks 20000 "B0X" > "$work/batch.txt"
    start=$(date +%s.%N)
    "$bin/tokenctl" activate --batch "$work/batch.txt" --concurrency 8 > /dev/null 2>&1 || true
    batch_rate=$(python3 -c "import time; print(f'{20000 / (time.time() - $start):.0f}')")
    echo "  R=0: CLI batch, concurrency 8, 20,000 lines: $batch_rate activations/s (target: service >= batch)"
  else
    echo "  R=20: target >= 0.8 x tmp.max-connections (32) / R = 1280 activations/s; ratio to 32 / R: $(ratio "$activations_per_second" 1600)"
    # The proxy's timers wake on epoll's whole milliseconds, so it adds a little more than R:
    # what it adds is the warm activation's time at R = 20 less its time at R = 0.
    effective=$(python3 -c "print(f'{${warm[20]} - ${warm[0]}:.2f}')")
    echo "  R=20: the proxy adds $effective ms to a warm activation; ratio to 32 / $effective ms: $(python3 -c "print(f'{$activations_per_second * $effective / 32000:.2f}')")"
  fi
done

echo
echo "== paced load: the service's latency at 25% and 50% of its capacity, beside TMP's own at the same rate"
# Both against the sandbox's plain HTTP endpoint (no terminator): what the service adds to the
# TMP it calls. 16 connections, each waiting its share of the period after its answer (wrk's
# delay()): the rate offered is at most the one asked for, and wrk reports the one reached.
export TOKENCTL_TMP_BASE_URL="$url"
write_post_lua
paced_lua() { # source target
  { cat "$1"; printf 'local gap = tonumber(os.getenv("WRK_GAP_MS"))\nfunction delay() return gap end\n'; } > "$2"
}
paced_lua "$work/activate.lua" "$work/activate-paced.lua"
paced_lua "$work/post.lua" "$work/post-paced.lua"
fresh_db <(throughput_passes "PC" 200000)
start_service --listen 127.0.0.1:0
tcp=$(sed -n 's/^listening \(http:.*\)/\1/p' "$work/serve.log")
WRK_PREFIX=PCAP wrk -t 2 -c 64 -d 5s -s "$work/activate.lua" "$tcp" > "$work/wrk-capacity.txt" 2>&1
capacity=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$work/wrk-capacity.txt")
echo "  capacity (64 keep-alive clients, TMP on plain HTTP): $capacity activations/s"
row "offered load" "reached/s" "p50" "p99" "service p99 - TMP p99 (target <= 3 ms)"
for share in 25 50; do
  rate=$((capacity * share / 100))
  gap=$(python3 -c "print(max(0, round(16 * 1000 / $rate, 1)))")
  WRK_GAP_MS=$gap WRK_PREFIX="PC$share" wrk -t 2 -c 16 -d 10s --latency -s "$work/activate-paced.lua" "$tcp" > "$work/paced-service-$share.txt" 2>&1
  WRK_GAP_MS=$gap wrk -t 2 -c 16 -d 10s --latency -s "$work/post-paced.lua" "$endpoint" > "$work/paced-tmp-$share.txt" 2>&1
  ms() { awk -v q="$2" '$1 == q { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.2f", v }' "$1"; }
  reached() { awk '/Requests\/sec/ { printf "%.0f", $2 }' "$1"; }
  s=$work/paced-service-$share.txt t=$work/paced-tmp-$share.txt
  row "service at ${share}% ($rate/s)" "$(reached "$s")" "$(ms "$s" 50%)" "$(ms "$s" 99%)" \
    "$(python3 -c "print(f'{$(ms "$s" 99%) - $(ms "$t" 99%):.2f}')")"
  row "TMP (sandbox) alone at the same rate" "$(reached "$t")" "$(ms "$t" 50%)" "$(ms "$t" 99%)" ""
done
stop_service

echo
echo "== memory: RSS of a service over 100,000 activations (R = 0)"
export TOKENCTL_TMP_BASE_URL="https://127.0.0.1:$tls_port"
fresh_db <(throughput_passes "M" 150000)
start_service --listen 127.0.0.1:0
tcp=$(sed -n 's/^listening \(http:.*\)/\1/p' "$work/serve.log")
WRK_PREFIX=M wrk -t 2 -c 64 -d 300s -s "$work/activate.lua" "$tcp" > /dev/null 2>&1 &
wrk_pid=$!
rss_at_10k= total=0
while [ "${total:-0}" -lt 100000 ] && kill -0 "$wrk_pid" 2>/dev/null; do
  sleep 0.5
  total=$(metric 'tokenctl_activations_total{outcome="APPROVED"}'); total=${total%.*}
  if [ -z "$rss_at_10k" ] && [ "${total:-0}" -ge 10000 ]; then rss_at_10k=$(ps -o rss= -p "$service_pid"); rss_at_10k_count=$total; fi
done
rss_end=$(ps -o rss= -p "$service_pid")
kill "$wrk_pid" 2>/dev/null || true; wait "$wrk_pid" 2>/dev/null || true
opened=$(metric tokenctl_tmp_connections_opened_total)
stop_service
echo "  RSS after $rss_at_10k_count activations: $((rss_at_10k / 1024)) MiB; after $total: $((rss_end / 1024)) MiB (ratio $(ratio "$rss_end" "$rss_at_10k"), target <= 1.2); TMP connections opened: $opened (tmp.max-connections 32)"
