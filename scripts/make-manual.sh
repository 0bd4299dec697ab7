#!/usr/bin/env bash
# One man page per subcommand, from the commands' own help (swift-argument-parser's
# generate-manual --multi-page), named as man(1) and whatis expect: tokenctl-activate(1) for
# `tokenctl activate`, tokenctl-serve(1) for the service; plus the handler's page
# (Deeplinks/tokenctl-handler.1). Pages of `help` are left out.
# Usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR
#   BUILD_DIR holds tokenctl, tokenctl-sandbox and generate-manual (make build-manual).
# The date is the last commit's (or SOURCE_DATE_EPOCH), so a rebuild gives the same pages.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR}
# Absolute: the service's pages come from a link to it in another directory.
build=$(cd "$build" && pwd)
output=${2:?usage: scripts/make-manual.sh BUILD_DIR OUTPUT_DIR}
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}
date=$(date -u -d "@$epoch" +%Y-%m-%d)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/generate-manual" "$build/tokenctl" --multi-page --date "$date" -o "$work"
# The service's pages from its own command line: the executable started as tokenctl-serve.
ln -s "$build/tokenctl" "$work/tokenctl-serve"
"$build/generate-manual" "$work/tokenctl-serve" --multi-page --date "$date" -o "$work"
rm "$work/tokenctl-serve"
# The sandbox's and the demo's pages from tokenctl-sandbox, which runs them (the whole help,
# where tokenctl declares their options only).
mkdir "$work/sandbox"
"$build/generate-manual" "$build/tokenctl-sandbox" --multi-page --date "$date" -o "$work/sandbox"
cp "$work/sandbox/tokenctl.sandbox.1" "$work/sandbox/tokenctl.demo.1" "$work/"
rm -r "$work/sandbox"
rm -f "$work/tokenctl.serve.1" "$work/tokenctl.help.1" "$work/tokenctl serve.help.1"
mkdir -p "$output"
python3 - "$work" "$output" <<'PY'
import os, re, sys
source, output = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(source)):
    command = name[:-2].replace(".", " ")           # "tokenctl audit list"
    page = command.replace(" ", "-")                 # "tokenctl-audit-list"
    lines = open(os.path.join(source, name), encoding="utf-8").read().split("\n")
    result, section = [], None
    for line in lines:
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
        if line.startswith(".Dt "):
            line = f".Dt {page.upper()} 1"
        elif line.startswith(".Nm") and section == "NAME":
            line = f".Nm {page}"                      # the page's name, as whatis reads it
        elif line.startswith('.Nd "') and line.endswith('"'):
            line = ".Nd " + line[5:-1]                # apropos shows the description without quotes
        elif page == "tokenctl-serve" and section == "SYNOPSIS" and "subcommand" in line:
            continue                                  # serve's only subcommand is help, left out
        elif line == ".Nm":
            line = f'.Nm "{command}"'                 # the command as it is typed
        elif line.startswith(".Xr "):
            target = re.sub(r'^\.Xr "?([^"]*?)"? 1', r"\1", line).split(" ,")[0].strip()
            if target.endswith("help"):
                if page == "tokenctl-serve":
                    result.append(".Xr tokenctl 1")
                continue
            line = re.sub(r'^\.Xr "?[^"]*?"? 1', f".Xr {target.replace('.', '-').replace(' ', '-')} 1", line)
        elif line == "" and section not in (None,):
            line = ".Pp"                              # groff warns on empty input lines
        result.append(line)
    while result and result[-1] in ("", ".Pp"):
        result.pop()
    # A SEE ALSO list whose last entry was dropped must not end with a comma.
    for index in range(len(result) - 1, -1, -1):
        if result[index].startswith(".Xr "):
            result[index] = result[index].rstrip(" ,")
            break
    open(os.path.join(output, page + ".1"), "w", encoding="utf-8").write("\n".join(result) + "\n")
PY
sed "s/^\.Dd .*/.Dd $(date -u -d "@$epoch" '+%B %-d, %Y')/" "$here/Deeplinks/tokenctl-handler.1" > "$output/tokenctl-handler.1"
echo "make-manual: $(ls "$output" | wc -l) pages in $output"
