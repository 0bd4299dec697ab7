#!/usr/bin/env bash
# PostgreSQL next to SQLite, on a private PostgreSQL 15 (scripts/test-postgres.sh, durable:
# fsync and synchronous commits on, unless TEST_POSTGRES_DURABLE=0) and one `tokenctl sandbox`:
#   1. aggregate activations/s of 1, 2 and 4 batch processes (each --concurrency 8, disjoint
#      passes, one database), PostgreSQL next to SQLite (the median of three runs each);
#   2. the latency of one cold `tokenctl activate` on each (hyperfine, median);
#   3. an import of N records into PostgreSQL (COPY) next to SQLite and to psql's \copy into
#      the same table (the median of three runs each, peak RSS);
#   4. the audit chain's append rate with 16 writers (pgbench, 16 clients, 10 s each):
#      tokenctl_step with one row per call and with a group of 8 rows per call (as a batch's
#      group writer sends them), next to unchained inserts into a copy of the table;
#   5. tokenctl serve on PostgreSQL: 1 and 4 instances (one host id each) driven by 64
#      keep-alive clients (wrk), next to 1 instance on SQLite;
#   then the issue's targets in one table: batch rates and their ratio to SQLite, the
#   server's CPU per activation, round trips and statements per activation.
#
#   Benchmarks/postgres.sh <release build dir> [batch lines] [records]
set -euo pipefail
bin=$(cd "${1:?usage: postgres.sh <release build dir> [batch lines] [records]}" && pwd)
lines=${2:-20000}
records=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
# The server runs as the postgres user, who cannot enter the private $work. (Not exported:
# tokenctl refuses TOKENCTL_* variables that are not its own.)
server() { TEST_POSTGRES_DIR="/tmp/tokenctl-bench-postgres-$$" TEST_POSTGRES_DURABLE="${TEST_POSTGRES_DURABLE:-1}" TEST_POSTGRES_STATEMENTS=1 "$here/../scripts/test-postgres.sh" "$@"; }
sandbox_pid=
cleanup() {
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null
  server stop --purge > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work" TOKENCTL_LOG_LEVEL=error
. "$here/common.sh"
install_tools hyperfine sqlite3
start_sandbox
server_env=$(server start)
test_url=$(sed -n "s/.*TOKENCTL_TEST_DATABASE_URL='\([^']*\)'.*/\1/p" <<< "$server_env")
eval "$(grep '^export PG' <<< "$server_env")"   # PGHOST, PGPORT, PGUSER, PGPASSWORD for psql and pgbench
export TOKENCTL_DATABASE_PASSWORD="$PGPASSWORD"
PGBENCH=/usr/lib/postgresql/15/bin/pgbench
row() { printf '  %-34s %12s %12s %8s\n' "$@"; }
ratio() { python3 -c "a, b = '$1', '$2'; print(f'{float(a) / float(b):.2f}' if a and b and float(b) else '-')"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
peak_rss() { /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > /dev/null; cat "$work/time.txt"; }

# A new, empty PostgreSQL database named $1, migrated; its URL in $pg_url.
fresh_pg() {
  # FORCE: the sessions of a service just stopped may not have ended yet. An autovacuum
  # worker in it cannot be ended by this role: asked again until it has gone.
  for _ in $(seq 20); do psql -X -q -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" 2> /dev/null && break; sleep 0.5; done
  psql -X -q -c "CREATE DATABASE $1"
  pg_url="${test_url%%/tokenctl\?*}/$1?sslmode=disable"
  TOKENCTL_DATABASE_URL="$pg_url" "$bin/tokenctl" db migrate > /dev/null
}
backend_env() { if [ "$1" = sqlite ]; then echo "-u TOKENCTL_DATABASE_URL TOKENCTL_DATABASE_PATH=$work/db.sqlite"; else echo "TOKENCTL_DATABASE_URL=$pg_url"; fi; }
on_sqlite() { env $(backend_env sqlite) "$@"; }
on_postgres() { env $(backend_env postgres) "$@"; }
# A fresh database of the backend ($1: sqlite or postgres) holding $2's passes.
fresh_wallet() {
  if [ "$1" = sqlite ]; then rm -f "$work"/db.sqlite*; else fresh_pg bench; fi
  "on_$1" "$bin/tokenctl" wallet import "$2" > /dev/null
}

echo "== 1. batch: aggregate activations/s of 1, 2 and 4 processes, $lines lines in all (median of three runs)"
passes "$lines" SN > "$work/passes.csv"
deeplinks "$lines" SN > "$work/batch.txt"
# CPU seconds (clock ticks) of the PostgreSQL server: the postmaster, its live children, and
# the children it has reaped (backends that ended, autovacuum workers).
postmaster=$(head -1 "/tmp/tokenctl-bench-postgres-$$/data/postmaster.pid")
ticks() { # pids... -> utime + stime (+ cutime + cstime of the first)
  local total=0 first=$1 fields
  for pid in "$@"; do
    read -r -a fields < <(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
    total=$((total + fields[11] + fields[12]))
    [ "$pid" = "$first" ] && total=$((total + fields[13] + fields[14]))
  done
  echo "$total"
}
pg_ticks() { ticks "$postmaster" $(pgrep -P "$postmaster"); }
hz=$(getconf CLK_TCK)
batch_rate() { # backend processes -> "rate pg-ms tokenctl-ms sandbox-ms" (CPU per activation)
  rm -f "$work"/part.*
  split -n "l/$2" -d "$work/batch.txt" "$work/part."
  local start end pids=() pg0 pg1 sb0 sb1
  pg0=$(pg_ticks); sb0=$(ticks "$sandbox_pid")
  start=$(date +%s.%N)
  for part in "$work"/part.??; do
    "on_$1" /usr/bin/time -f "%U %S" -o "$part.time" "$bin/tokenctl" activate --batch "$part" --concurrency 8 --host-id "bench-$(basename "$part")" > "$part.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  end=$(date +%s.%N)
  pg1=$(pg_ticks); sb1=$(ticks "$sandbox_pid")
  local approved
  approved=$(cat "$work"/part.??.out | awk '{ for (i = 1; i < NF; i++) if ($i == "APPROVED") sum += $(i + 1) } END { print sum + 0 }')
  [ "$approved" = "$lines" ] || { echo "bench: $1 with $2 processes approved $approved of $lines:" >&2; head -5 "$work"/part.??.out >&2; }
  local client
  client=$(cat "$work"/part.??.time | awk '{ sum += $1 + $2 } END { print sum }')
  [ "$1" = postgres ] || { pg1=0; pg0=0; }
  python3 -c "print(round($lines / ($end - $start)), f'{($pg1 - $pg0) * 1000 / $hz / $lines:.3f}', f'{$client * 1000 / $lines:.3f}', f'{($sb1 - $sb0) * 1000 / $hz / $lines:.3f}')"
}
# The median run's figures (by rate) of three: sets $figures.
median_run() { # backend processes
  local runs=()
  for run in 1 2 3; do
    fresh_wallet "$1" "$work/passes.csv"
    runs+=("$(batch_rate "$1" "$2")")
  done
  figures=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
}
row "processes" postgres sqlite "pg/sqlite"
declare -A rate=() pg_cpu=() client_cpu=() sandbox_cpu=()
for processes in 1 2 4; do
  for backend in postgres sqlite; do
    median_run "$backend" "$processes"
    read -r rate[$backend$processes] pg_cpu[$backend$processes] client_cpu[$backend$processes] sandbox_cpu[$backend$processes] <<< "$figures"
  done
  row "$processes" "${rate[postgres$processes]}" "${rate[sqlite$processes]}" "$(ratio "${rate[postgres$processes]}" "${rate[sqlite$processes]}")"
done
echo "  CPU per activation (ms): 1 process on PostgreSQL: server ${pg_cpu[postgres1]}, tokenctl ${client_cpu[postgres1]}, sandbox ${sandbox_cpu[postgres1]};"
echo "  on SQLite: tokenctl ${client_cpu[sqlite1]}, sandbox ${sandbox_cpu[sqlite1]}; 4 processes on PostgreSQL: server ${pg_cpu[postgres4]}, tokenctl ${client_cpu[postgres4]}"

# Statements per activation: one more 1-process run with pg_stat_statements tracking every
# level. Top-level statements are round trips (one each on the extended protocol).
superuser() { psql -X -q -At -U postgres -d "${1:-postgres}" -c "$2"; }
superuser postgres "ALTER SYSTEM SET pg_stat_statements.track = 'all'" > /dev/null
superuser postgres "SELECT pg_reload_conf()" > /dev/null
fresh_wallet postgres "$work/passes.csv"
superuser bench "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" > /dev/null
superuser bench "SELECT pg_stat_statements_reset()" > /dev/null
batch_rate postgres 1 > /dev/null
read -r round_trips statements < <(superuser bench "SELECT round(sum(calls) FILTER (WHERE toplevel)::numeric / $lines, 2), round(sum(calls)::numeric / $lines, 2)
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench') AND query NOT LIKE '%pg_stat_statements%'" | tr '|' ' ')
echo "  per activation (1 process): $round_trips round trips, $statements statements at all levels (pg_stat_statements); the busiest:"
superuser bench "SELECT format('    %s calls, %s ms: %s', calls, round(total_exec_time::numeric / calls, 3), left(regexp_replace(query, '\s+', ' ', 'g'), 80))
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench') AND query NOT LIKE '%pg_stat_statements%'
  ORDER BY calls DESC, total_exec_time DESC LIMIT 8"
superuser postgres "ALTER SYSTEM SET pg_stat_statements.track = 'none'" > /dev/null
superuser postgres "SELECT pg_reload_conf()" > /dev/null

echo
echo "== 2. one cold activation (ms, median of 50; the pass is declined, so every run sends)"
printf 'serialNumber,deviceAccountIdentifier\nSNONE,SBXDECLINED000001\n' > "$work/one.csv"
fresh_wallet sqlite "$work/one.csv"
fresh_wallet postgres "$work/one.csv"
activate="$bin/tokenctl activate mybank://activate?serialNumber=SNONE"
hyperfine -N -i --warmup 5 --runs 50 --export-json "$work/cold.json" \
  "env TOKENCTL_DATABASE_URL=$pg_url $activate" "env TOKENCTL_DATABASE_PATH=$work/db.sqlite $activate" > /dev/null 2>&1
read -r pg_ms sqlite_ms < <(python3 -c '
import json, sys
print(" ".join("%.2f" % (r["median"] * 1000) for r in json.load(open(sys.argv[1]))["results"]))' "$work/cold.json")
row "" postgres sqlite "pg/sqlite"
row "activate (ms)" "$pg_ms" "$sqlite_ms" "$(ratio "$pg_ms" "$sqlite_ms")"

echo
echo "== 3. import of $records records (CSV into an empty wallet; median of three runs)"
awk -v n="$records" 'BEGIN {
  print "serialNumber,deviceAccountIdentifier,passTypeIdentifier,state,device,cardSuffix"
  for (i = 0; i < n; i++) printf "SN%d,DAPL%012d,paymentpass.com.apple,requiresActivation,iPhone,%04d\n", i, i, i % 10000
}' > "$work/records.csv"
pg_runs=(); sqlite_runs=(); copy_runs=(); pg_kib=0
for run in 1 2 3; do
  fresh_pg bench; sync
  read -r seconds kib < <(peak_rss env TOKENCTL_DATABASE_URL="$pg_url" "$bin/tokenctl" wallet import "$work/records.csv")
  pg_runs+=("$seconds"); [ "$kib" -gt "$pg_kib" ] && pg_kib=$kib
  rm -f "$work"/db.sqlite*; sync
  read -r seconds _ < <(peak_rss env -u TOKENCTL_DATABASE_URL TOKENCTL_DATABASE_PATH="$work/db.sqlite" "$bin/tokenctl" wallet import "$work/records.csv")
  sqlite_runs+=("$seconds")
  # The peer: psql's \copy of the same file into the same table (no validation, no merge).
  fresh_pg bench; sync
  start=$(date +%s.%N)
  psql -X -q -d bench -c "\\copy pass_record (serial_number, device_account_identifier, pass_type_identifier, state, device_label, card_suffix) FROM '$work/records.csv' CSV HEADER"
  end=$(date +%s.%N)
  copy_runs+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
done
row "" seconds "peak MiB" ""
row "tokenctl wallet import, postgres" "$(median "${pg_runs[@]}")" "$((pg_kib / 1024))" ""
row "tokenctl wallet import, sqlite" "$(median "${sqlite_runs[@]}")" "" ""
row "psql \\copy, postgres" "$(median "${copy_runs[@]}")" "" ""

echo
echo "== 4. audit chain appends/s with 16 writers (pgbench, 10 s each)"
fresh_pg chain
psql -X -q -d chain -c "CREATE TABLE audit_plain (LIKE audit_row INCLUDING DEFAULTS)"
# tokenctl_step with N audit rows of new attempts (ids from the sequence, \gset) per call.
step_sql() { # rows per call
  python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
row = '{"attempt": :a%d, "event": "started", "at": "2026-01-01T00:00:00.000Z", "request": "r", "serial": "SN", "deeplink": "h", "rest": ", \\"x\\": 1}"}'
print("SELECT " + ", ".join("nextval('audit_attempt_id') AS a%d" % k for k in range(n)) + " \\gset")
print("CALL tokenctl_step('[" + ", ".join('{"rows": [%s]}' % (row % k) for k in range(n)) + "]', '[]', 'genesis', NULL);")
PY
}
step_sql 1 > "$work/one.sql"
step_sql 8 > "$work/group.sql"
echo "INSERT INTO audit_plain (seq, attempt_id, event, at, request_id, serial_number, deeplink_hash, previous_hash, hash) VALUES (nextval('audit_attempt_id'), 0, 'started', 'x', 'r', 'SN', 'h', 'p', 'h');" > "$work/plain.sql"
pgbench_tps() {
  "$PGBENCH" -n -c 16 -j 2 -T 10 -d chain -f "$1" > "$work/pgbench.out" 2>&1 || { echo "bench: pgbench $1:" >&2; tail -3 "$work/pgbench.out" >&2; }
  awk '/^tps/ { print int($3) }' "$work/pgbench.out"
}
one=$(pgbench_tps "$work/one.sql")
group=$(pgbench_tps "$work/group.sql")
plain=$(pgbench_tps "$work/plain.sql")
row "" "calls/s" "rows/s" ""
row "chained, 1 row per call" "$one" "$one" ""
row "chained, 8 rows per call" "$group" "$((group * 8))" ""
row "unchained INSERT (peer)" "$plain" "$plain" ""
broken=$(psql -X -At -d chain -c "SELECT count(*) FROM (SELECT previous_hash, lag(hash) OVER (ORDER BY seq) AS before FROM audit_row) AS link WHERE before <> previous_hash")
echo "  chain links broken after the concurrent appends: $broken of $(psql -X -At -d chain -c "SELECT count(*) FROM audit_row") rows"

echo
echo "== 5. tokenctl serve: 64 keep-alive clients (wrk, 2 threads, 10 s) spread over 1 or 4 instances"
write_activate_lua
# Passes for instance prefixes I0..I3, two wrk threads each.
serve_passes() { awk -v n="$1" 'BEGIN { print "serialNumber,deviceAccountIdentifier"; for (s = 0; s < 4; s++) for (t = 0; t < 2; t++) for (i = 1; i <= n; i++) printf "I%dP%d_%d,DAPL%d%d%010d\n", s, t, i, s, t, i }'; }
serve_passes 60000 > "$work/serve.csv"
serve_rate() { # backend instances -> APPROVED activations/s over 10 s, all instances together
  fresh_wallet "$1" "$work/serve.csv"
  local pids=() urls=() instance
  mkdir -p "$work/run"
  for instance in $(seq 0 $(($2 - 1))); do
    rm -f "$work/serve-$instance.log"
    # Through env, not a function: $! is then tokenctl itself, which the kill below stops.
    env $(backend_env "$1") "$bin/tokenctl" serve --socket "$work/run/s$instance.sock" --listen 127.0.0.1:0 --host-id "bench-serve-$instance" > "$work/serve-$instance.log" 2> "$work/serve-$instance.err" &
    pids+=($!)
  done
  for instance in $(seq 0 $(($2 - 1))); do
    for _ in $(seq 200); do grep -q '^listening http' "$work/serve-$instance.log" 2>/dev/null && break; sleep 0.05; done
    urls+=("$(sed -n 's/^listening \(http:.*\)/\1/p' "$work/serve-$instance.log")")
  done
  local wrks=()
  for instance in $(seq 0 $(($2 - 1))); do
    WRK_PREFIX="I${instance}P" wrk -t 2 -c $((64 / $2)) -d 10s -s "$work/activate.lua" "${urls[$instance]}" > "$work/wrk-$instance.txt" 2>&1 &
    wrks+=($!)
  done
  for pid in "${wrks[@]}"; do wait "$pid" || true; done
  local approved=0 count
  for instance in $(seq 0 $(($2 - 1))); do
    count=$(curl -s --unix-socket "$work/run/s$instance.sock" http://localhost/metrics | awk '$1 == "tokenctl_activations_total{outcome=\"APPROVED\"}" { print $2 }')
    approved=$((approved + ${count:-0}))
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
  python3 -c "print(round($approved / 10))"
}
install_tools wrk
serve_pg_1=$(serve_rate postgres 1)
serve_pg_4=$(serve_rate postgres 4)
serve_sqlite_1=$(serve_rate sqlite 1)
row "instances" postgres sqlite "pg/sqlite"
row "1" "$serve_pg_1" "$serve_sqlite_1" "$(ratio "$serve_pg_1" "$serve_sqlite_1")"
row "4" "$serve_pg_4" "" ""

echo
echo "== targets (this run; the figures above)"
printf '  %-44s %10s %10s %8s   %s\n' "" postgres sqlite ratio target
target() { printf '  %-44s %10s %10s %8s   %s\n' "$@"; }
target "batch, 1 process (activations/s)" "${rate[postgres1]}" "${rate[sqlite1]}" "$(ratio "${rate[postgres1]}" "${rate[sqlite1]}")" ">= 0.5 x SQLite"
target "batch, 4 processes (activations/s)" "${rate[postgres4]}" "${rate[sqlite4]}" "$(ratio "${rate[postgres4]}" "${rate[postgres1]}")" ">= 1 x 1 process (ratio: to 1 process)"
target "serve, 4 instances (activations/s)" "$serve_pg_4" "" "$(ratio "$serve_pg_4" "$serve_pg_1")" ">= 1 x 1 instance (ratio: to 1 instance)"
target "PostgreSQL server CPU per activation (ms)" "${pg_cpu[postgres1]}" "" "" "<= 0.2"
target "tokenctl CPU per activation (ms)" "${client_cpu[postgres1]}" "${client_cpu[sqlite1]}" "$(ratio "${client_cpu[postgres1]}" "${client_cpu[sqlite1]}")" ""
target "round trips per activation (1 process)" "$round_trips" "" "" "<= 1"
target "statements per activation, all levels" "$statements" "" "" ""
target "one cold activation (ms)" "$pg_ms" "$sqlite_ms" "$(ratio "$pg_ms" "$sqlite_ms")" ""
