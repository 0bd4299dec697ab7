#!/usr/bin/env bash
# PostgreSQL next to SQLite, on a private PostgreSQL 15 (scripts/test-postgres.sh, durable:
# fsync and synchronous commits on, unless TEST_POSTGRES_DURABLE=0) and one `tokenctl sandbox`:
#   1. aggregate activations/s of 1, 2 and 4 batch processes (each --concurrency 8, disjoint
#      passes, one database), PostgreSQL next to SQLite (the median of three runs each);
#   2. the latency of one cold `tokenctl activate` on each (hyperfine, median);
#   3. an import of N records into PostgreSQL (COPY) next to SQLite and to psql's \copy into
#      the same table (the median of three runs each, peak RSS);
#   4. the audit chain's append rate with 16 writers (pgbench, 16 clients, 10 s each):
#      tokenctl_apply with one row per call and with a group of 8 rows per call (as a batch's
#      group writer sends them), next to unchained inserts into a copy of the table.
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
server() { TEST_POSTGRES_DIR="/tmp/tokenctl-bench-postgres-$$" TEST_POSTGRES_DURABLE="${TEST_POSTGRES_DURABLE:-1}" "$here/../scripts/test-postgres.sh" "$@"; }
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
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
peak_rss() { /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > /dev/null; cat "$work/time.txt"; }

# A new, empty PostgreSQL database named $1, migrated; its URL in $pg_url.
fresh_pg() {
  psql -X -q -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
  pg_url="${test_url%%/tokenctl\?*}/$1?sslmode=disable"
  TOKENCTL_DATABASE_URL="$pg_url" "$bin/tokenctl" db migrate > /dev/null
}
on_sqlite() { env -u TOKENCTL_DATABASE_URL TOKENCTL_DATABASE_PATH="$work/db.sqlite" "$@"; }
on_postgres() { env TOKENCTL_DATABASE_URL="$pg_url" "$@"; }
# A fresh database of the backend ($1: sqlite or postgres) holding $2's passes.
fresh_wallet() {
  if [ "$1" = sqlite ]; then rm -f "$work"/db.sqlite*; else fresh_pg bench; fi
  "on_$1" "$bin/tokenctl" wallet import "$2" > /dev/null
}

echo "== 1. batch: aggregate activations/s of 1, 2 and 4 processes, $lines lines in all (median of three runs)"
passes "$lines" SN > "$work/passes.csv"
deeplinks "$lines" SN > "$work/batch.txt"
batch_rate() { # backend processes
  rm -f "$work"/part.*
  split -n "l/$2" -d "$work/batch.txt" "$work/part."
  local start end pids=()
  start=$(date +%s.%N)
  for part in "$work"/part.??; do
    "on_$1" "$bin/tokenctl" activate --batch "$part" --concurrency 8 --host-id "bench-$(basename "$part")" > "$part.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  end=$(date +%s.%N)
  local approved
  approved=$(cat "$work"/part.??.out | awk '{ for (i = 1; i < NF; i++) if ($i == "APPROVED") sum += $(i + 1) } END { print sum + 0 }')
  [ "$approved" = "$lines" ] || { echo "bench: $1 with $2 processes approved $approved of $lines:" >&2; head -5 "$work"/part.??.out >&2; }
  python3 -c "print(round($lines / ($end - $start)))"
}
row "processes" postgres sqlite "pg/sqlite"
for processes in 1 2 4; do
  declare -A rate=()
  for backend in postgres sqlite; do
    runs=()
    for run in 1 2 3; do
      fresh_wallet "$backend" "$work/passes.csv"
      runs+=("$(batch_rate "$backend" "$processes")")
    done
    rate[$backend]=$(median "${runs[@]}")
  done
  row "$processes" "${rate[postgres]}" "${rate[sqlite]}" "$(ratio "${rate[postgres]}" "${rate[sqlite]}")"
  eval "pg_$processes=${rate[postgres]} sqlite_$processes=${rate[sqlite]}"
done
echo "  goal: 4 processes on PostgreSQL ($pg_4/s) >= 1 process on SQLite ($sqlite_1/s): $(ratio "$pg_4" "$sqlite_1")×"

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
row_json() { # the audit row of one attempt ($1: SQL for the attempt id)
  echo "jsonb_build_object('attempt', $1, 'event', 'started', 'at', '2026-01-01T00:00:00.000Z', 'request', 'r', 'serial', 'SN', 'deeplink', 'h', 'rest', ', \"x\": 1}')"
}
echo "SELECT tokenctl_apply(jsonb_build_array(jsonb_build_object('rows', jsonb_build_array($(row_json "nextval('audit_attempt_id')")))), 'genesis');" > "$work/one.sql"
echo "SELECT tokenctl_apply((SELECT jsonb_agg(jsonb_build_object('rows', jsonb_build_array($(row_json "nextval('audit_attempt_id')")))) FROM generate_series(1, 8)), 'genesis');" > "$work/group.sql"
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
