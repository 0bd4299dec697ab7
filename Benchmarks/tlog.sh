#!/usr/bin/env bash
# `make bench-tlog`: the audit as a transparency log (DESIGN §9) on SQLite, at ROWS audit rows
# (made by Benchmarks/make_audit.py, chained as tokenctl chains them):
#   - the first `audit checkpoint` (the tree stored over every row) and the next ones, each
#     after 1,000 more rows: what an operator's periodic checkpoint costs;
#   - inclusion and consistency proofs and tree heads in process (TransparencyLogBenchmark),
#     and `audit prove` as a command;
#   - `audit verify --checkpoint` over every row;
#   - the tree's storage per row, beside the row's own;
#   - `audit checkpoint --publish` to a witness (a second sandbox): the first publication,
#     and each after 1,000 more rows (the consistency proof and one round trip);
#   - batch throughput with checkpoints signed every second beside it, and without, on
#     SQLite and on PostgreSQL (a private server, scripts/test-postgres.sh).
#   Benchmarks/tlog.sh BIN_DIR [ROWS] [LINES]
set -euo pipefail
bin=$(cd "$1" && pwd)
rows=${2:-1000000}
lines=${3:-20000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# shellcheck source=Benchmarks/common.sh
. "$here/common.sh"
install_tools hyperfine sqlite3
export HOME=$work TOKENCTL_DATABASE_PATH=$work/db.sqlite
ms() { python3 -c "import sys; print(f'{(float(sys.argv[2]) - float(sys.argv[1])) * 1000:.0f}')" "$@"; }
now() { date +%s.%N; }
bytes() { sqlite3 "$TOKENCTL_DATABASE_PATH" "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name $1"; }

"$bin/tokenctl" db migrate > /dev/null
python3 "$here/make_audit.py" "$TOKENCTL_DATABASE_PATH" $((rows / 2))
"$bin/tokenctl" audit key generate --origin bench.example/tokenctl-audit --out "$work/audit.key" > "$work/audit.vkey" 2>/dev/null
export TOKENCTL_AUDIT_ORIGIN=bench.example/tokenctl-audit TOKENCTL_AUDIT_SIGNING_KEY_FILE=$work/audit.key

echo "== the transparency log at $rows audit rows (SQLite)"
start=$(now); "$bin/tokenctl" audit checkpoint > "$work/first.checkpoint"; first=$(ms "$start" "$(now)")
echo "  first audit checkpoint (the tree stored over every row): $first ms"
times=()
for _ in 1 2 3 4 5; do
  python3 "$here/make_audit.py" "$TOKENCTL_DATABASE_PATH" 500
  start=$(now); "$bin/tokenctl" audit checkpoint > /dev/null; times+=("$(ms "$start" "$(now)")")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')
echo "  audit checkpoint after 1,000 more rows, 5 runs: $sorted ms (median $(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p) ms; target <= 50 ms)"
"$bin/TransparencyLogBenchmark" "$TOKENCTL_DATABASE_PATH" 1000 | sed 's/^/  /'
echo "  (target: a proof <= 5 ms)"
hyperfine -N --warmup 3 --runs 30 --export-json "$work/prove.json" "$bin/tokenctl audit prove $((rows / 4))" > /dev/null 2>&1
echo "  tokenctl audit prove (the command, cold): $(python3 -c "import json; r = json.load(open('$work/prove.json'))['results'][0]; print(f\"{r['median'] * 1000:.1f} ms median\")")"
start=$(now); "$bin/tokenctl" audit verify --checkpoint "$work/first.checkpoint" --verifier-key "$(cat "$work/audit.vkey")" > /dev/null; verified=$(ms "$start" "$(now)")
echo "  audit verify --checkpoint over $rows rows: $verified ms (target <= 10 s)"
total=$(sqlite3 "$TOKENCTL_DATABASE_PATH" "SELECT count(*) FROM audit_row")
tree=$(bytes "IN ('audit_tree_node', 'audit_tree_leaves')"); audit=$(bytes "IN ('audit_row', 'sqlite_autoindex_audit_row_1', 'audit_row_serial')")
echo "  storage: the tree $(python3 -c "print(f'{$tree / $total:.0f}')") bytes a row, the audit row itself $(python3 -c "print(f'{$audit / $total:.0f}')") bytes (with its indexes)"

echo
echo "== audit checkpoint --publish to a witness (a second sandbox) at $total rows"
"$bin/tokenctl" sandbox --port 0 --witness-log "$(cat "$work/audit.vkey")" > "$work/witness.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q '^witness ' "$work/witness.log" 2>/dev/null && break; sleep 0.05; done
witness_url=$(sed -n 's/^listening //p' "$work/witness.log"); witness_key=$(sed -n 's/^witness verifier-key=//p' "$work/witness.log")
witnesses="[{\"url\": \"$witness_url\", \"verifier-key\": \"$witness_key\"}]"
start=$(now); TOKENCTL_AUDIT_WITNESSES=$witnesses "$bin/tokenctl" audit checkpoint --publish > /dev/null; published=$(ms "$start" "$(now)")
echo "  first publication (old size 0, no proof): $published ms"
times=()
for _ in 1 2 3 4 5; do
  python3 "$here/make_audit.py" "$TOKENCTL_DATABASE_PATH" 500
  start=$(now); TOKENCTL_AUDIT_WITNESSES=$witnesses "$bin/tokenctl" audit checkpoint --publish > /dev/null; times+=("$(ms "$start" "$(now)")")
done
echo "  audit checkpoint --publish after 1,000 more rows, 5 runs: $(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')ms (median $(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p) ms)"

echo
echo "== batch throughput, $lines lines, concurrency 8: checkpoints signed every second beside it, and none"
start_sandbox
pids+=("$sandbox_pid")
batch() { # label prefix
  fresh_db <(passes "$lines" "$2")
  deeplinks "$lines" "$2" > "$work/batch.txt"
  local signer=
  if [ "$1" = on ]; then (while :; do "$bin/tokenctl" audit checkpoint > /dev/null 2>&1 || true; sleep 1; done) & signer=$!; fi
  local start; start=$(now)
  "$bin/tokenctl" activate --batch "$work/batch.txt" --concurrency 8 > /dev/null 2>&1 || true
  local seconds; seconds=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(now)")
  [ -z "$signer" ] || { kill "$signer"; wait "$signer" 2>/dev/null || true; }
  python3 -c "print(f'{$lines / $seconds:.0f}')"
}
off1=$(batch off A); on1=$(batch on B); off2=$(batch off C); on2=$(batch on D)
echo "  log off: $off1, $off2 activations/s; checkpoints every second: $on1, $on2 activations/s (ratio $(python3 -c "print(f'{($on1 + $on2) / ($off1 + $off2):.2f}')"), target >= 0.97)"

# The same on PostgreSQL (a private, durable server; the server runs as the postgres user,
# who cannot enter $work).
server() { TEST_POSTGRES_DIR="/tmp/tokenctl-bench-tlog-$$" TEST_POSTGRES_DURABLE="${TEST_POSTGRES_DURABLE:-1}" "$here/../scripts/test-postgres.sh" "$@"; }
trap 'server stop --purge > /dev/null 2>&1 || true; cleanup' EXIT
server_env=$(server start)
test_url=$(sed -n "s/.*TOKENCTL_TEST_DATABASE_URL='\([^']*\)'.*/\1/p" <<< "$server_env")
eval "$(grep '^export PG' <<< "$server_env")"
export TOKENCTL_DATABASE_PASSWORD="$PGPASSWORD"
fresh_db() {
  for _ in $(seq 20); do psql -X -q -c "DROP DATABASE IF EXISTS tlogbench WITH (FORCE)" 2> /dev/null && break; sleep 0.5; done
  psql -X -q -c "CREATE DATABASE tlogbench"
  unset TOKENCTL_DATABASE_PATH
  export TOKENCTL_DATABASE_URL="${test_url%%/tokenctl\?*}/tlogbench?sslmode=disable"
  "$bin/tokenctl" db migrate > /dev/null
  "$bin/tokenctl" wallet import "$1" > /dev/null
}
off1=$(batch off E); on1=$(batch on F); off2=$(batch off G); on2=$(batch on H)
echo "  PostgreSQL: log off: $off1, $off2 activations/s; checkpoints every second: $on1, $on2 activations/s (ratio $(python3 -c "print(f'{($on1 + $on2) / ($off1 + $off2):.2f}')"), target >= 0.97)"
