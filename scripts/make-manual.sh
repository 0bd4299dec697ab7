#!/usr/bin/env bash
# One man page per subcommand, from the commands' own help (swift-argument-parser's
# generate-manual --multi-page), named as man(1) expects: tokenctl-activate.1 for
# `tokenctl activate`, tokenctl-serve.1 for the service. Pages of `help` are left out.
# Usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR
#   BUILD_DIR holds tokenctl, tokenctl-serve and generate-manual (make build-manual).
# The date is the last commit's (or SOURCE_DATE_EPOCH), so a rebuild gives the same pages.
set -euo pipefail
build=${1:?usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR}
output=${2:?usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR}
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$(dirname "$0")/.." log -1 --format=%ct 2>/dev/null || date +%s)}
date=$(date -u -d "@$epoch" +%Y-%m-%d)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/generate-manual" "$build/tokenctl" --multi-page --date "$date" -o "$work"
"$build/generate-manual" "$build/tokenctl-serve" --multi-page --date "$date" -o "$work"
rm -f "$work/tokenctl.serve.1" "$work/tokenctl.help.1" "$work/tokenctl serve.help.1"
mkdir -p "$output"
for page in "$work"/*.1; do
  name=$(basename "$page" .1)
  name=${name// /-}
  name=${name//./-}
  # Page names and cross-references with dashes (tokenctl-audit-list), as man finds them.
  sed -E -e '/^\.(Dt|Xr) /{s/([a-z])\.([a-z])/\1-\2/g; s/([A-Z])\.([A-Z])/\1-\2/g}' \
    -e 's/^\.Dt "TOKENCTL SERVE"/.Dt TOKENCTL-SERVE/' -e 's/^\.Xr "tokenctl serve-help" 1/.Xr tokenctl 1/' \
    -e '/^\.Xr tokenctl-help /d' "$page" > "$output/$name.1"
  [ -z "$(tail -c 1 "$output/$name.1")" ] || echo >> "$output/$name.1"
done
echo "make-manual: $(ls "$output" | wc -l) pages in $output"
