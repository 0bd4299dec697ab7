#!/usr/bin/env bash
# The README's install path tried: `make install` into a temporary PREFIX from this source
# tree, then commands run from the installed tree (the CLI on a new database, the service's
# name, the sandbox's version, a man page, the completions and the units).
# Usage: scripts/install-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail() { echo "install-test: $*" >&2; exit 1; }
make --no-print-directory install PREFIX="$prefix" > "$work/install.log" 2>&1 || { tail -30 "$work/install.log" >&2; fail "make install PREFIX=$prefix failed"; }
bin="$prefix/bin"
for program in tokenctl tokenctl-serve tokenctl-sandbox tokenctl-handler; do [ -x "$bin/$program" ] || fail "$program is not installed"; done
"$bin/tokenctl" --version > /dev/null || fail "the installed tokenctl --version failed"
"$bin/tokenctl-sandbox" --version > /dev/null || fail "the installed tokenctl-sandbox --version failed"
"$bin/tokenctl" --database "$work/new.sqlite" wallet add --serial SNINSTALL --device-account-id DAPLINSTALL000 > /dev/null \
  || fail "the installed tokenctl cannot add a pass to a new database"
# Outputs are read whole before grep looks (grep -q closing a pipe early fails the writer).
listed=$("$bin/tokenctl" --database "$work/new.sqlite" wallet list)
grep -q "^1 pass record" <<< "$listed" || fail "the installed tokenctl does not list the pass it added: $listed"
help=$("$bin/tokenctl-serve" --help)
grep -q "tokenctl serve" <<< "$help" || fail "tokenctl-serve --help does not describe the service"
for page in tokenctl.1 tokenctl-activate.1 tokenctl-serve.1 tokenctl-handler.1; do
  [ -s "$prefix/share/man/man1/$page" ] || fail "man page $page is not installed"
done
! grep -l '^\.Nd "' "$prefix"/share/man/man1/*.1 | grep -q . || fail "man pages whose description (apropos) starts with a quote: $(grep -l '^\.Nd "' "$prefix"/share/man/man1/*.1)"
awk '/^\.Sh SYNOPSIS/ { s = 1; next } /^\.Sh / { s = 0 } s && /subcommand/ { found = 1 } END { exit !found }' "$prefix/share/man/man1/tokenctl-serve.1" \
  && fail "tokenctl-serve(1)'s SYNOPSIS names a subcommand"
[ -s "$prefix/share/bash-completion/completions/tokenctl" ] || fail "bash completion is not installed"
grep -q "ExecStart=$prefix/bin/" "$prefix/lib/systemd/system/tokenctl.service" || fail "tokenctl.service does not name the installed binary"
echo "install-test: make install PREFIX=<temporary>: $(find "$prefix" -type f | wc -l) files; the installed tokenctl ran on a new database"
