#!/usr/bin/env bash
# Wallet figures (release build): import of N records from CSV (wall time, peak RSS),
# lookups per second by serial, and the wall time of a cold `tokenctl wallet show`.
#
#   Benchmarks/wallet.sh <release build dir> [records]
set -euo pipefail
bin=${1:?usage: wallet.sh <release build dir> [records]}
records=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TOKENCTL_DATABASE_PATH="$work/bench.sqlite" HOME="$work"

command -v hyperfine >/dev/null || { echo "bench: installing hyperfine"; apt-get install -y -qq hyperfine >/dev/null 2>&1 || sudo apt-get install -y -qq hyperfine >/dev/null; }

echo "generating $records records"
awk -v n="$records" 'BEGIN {
  print "serialNumber,deviceAccountIdentifier,passTypeIdentifier,state,device,cardSuffix"
  for (i = 0; i < n; i++) printf "SN%d,DAPL%012d,paymentpass.com.apple,requiresActivation,iPhone,%04d\n", i, i, i % 10000
}' > "$work/passes.csv"
echo "input: $(du -h "$work/passes.csv" | cut -f1)"

echo
echo "== wallet import of $records records (CSV, fresh database)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$bin/tokenctl" wallet import "$work/passes.csv"
echo "== the same file again (every row unchanged)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$bin/tokenctl" wallet import "$work/passes.csv"
echo "== every row changed (state and card suffix)"
sed -e 's/,requiresActivation,iPhone,\([0-9]*\)$/,suspended,iPhone,9\1/' "$work/passes.csv" > "$work/changed.csv"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$bin/tokenctl" wallet import "$work/changed.csv"

echo
echo "== lookups by serial (open database, random serials)"
"$bin/WalletBenchmark" "$TOKENCTL_DATABASE_PATH" "$records"

echo
echo "== tokenctl wallet show (cold process, $records records in the wallet)"
hyperfine -N --warmup 5 --runs 100 "$bin/tokenctl wallet show SN$((records / 2))" 2>&1 | grep -E "Time|Range"
echo "== for scale: sqlite3 CLI, same lookup (cold process)"
hyperfine -N --warmup 5 --runs 100 "sqlite3 $TOKENCTL_DATABASE_PATH \"SELECT * FROM pass_record WHERE serial_number = 'SN$((records / 2))'\"" 2>&1 | grep -E "Time|Range"
