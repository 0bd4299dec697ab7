#!/usr/bin/env bash
# A walkthrough of tokenctl on a temporary database (nothing outside it is touched).
set -euo pipefail
tokenctl=${1:-tokenctl}
here=$(cd "$(dirname "$0")" && pwd)
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
export TOKENCTL_DATABASE_PATH="$workdir/tokenctl.sqlite"
export TOKENCTL_CONFIG="$here/../Config/tokenctl.json"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$tokenctl" wallet import "$here/example-passes.csv"
step "$tokenctl" wallet list
step "$tokenctl" wallet show SN1234567890 --device Watch
step "$tokenctl" wallet list --state requiresActivation --json
printf '\nIdentifiers are masked unless --reveal; the database is %s (mode %s).\n' \
  "$TOKENCTL_DATABASE_PATH" "$(stat -c %a "$TOKENCTL_DATABASE_PATH")"
