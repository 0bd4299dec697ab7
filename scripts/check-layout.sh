#!/usr/bin/env bash
# The module seams the build cannot express. The build itself checks that every target imports
# only what Package.swift declares for it (--explicit-target-dependency-import-check error, in
# the Makefile's RELEASE flags); this script checks what those declarations may be:
#   - the domain (WalletModel, TransparencyLog, OnboardingCore, TokenActivation, the
#     configuration and the service's wire types) reaches no driver and no database library;
#     only the composition root (TokenctlApp) chooses a driver;
#   - TransparencyLog is pure formats: swift-crypto and nothing else;
#   - the sandbox shares no client logic (it reaches no TokenActivation, OnboardingCore,
#     TransparencyLog or WalletModel): a test in which client and server share code proves
#     nothing about the wire;
#   - the tokenctl executable reaches the service only through ServiceCommand;
#   - every module under Sources/ is a target of the manifest;
#   - no test is a swift-testing exit test (`processExitsWith`): their monitor waits for any
#     child of the suite and spins, never reaping its own, on one another test has not yet
#     reaped, which hangs the suite; TestSupport's ChildRun waits for its own child only.
# Reads `swift package dump-package` (the manifest as JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
swift package dump-package >"$manifest"
python3 - "$manifest" <<'PYTHON'
import json, os, sys

targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}


def direct(name):
    """The target's declared dependencies: local targets and products by name."""
    found = []
    for dependency in targets[name]["dependencies"]:
        kind, value = next(iter(dependency.items()))
        found.append(value[0])
    return found


def reached(name):
    """Every module the target reaches through its dependencies, itself excluded."""
    seen, pending = set(), direct(name)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        if module in targets:
            pending += direct(module)
    return seen


failures = []
drivers = {"Storage", "PostgresStorage", "GRDB", "GRDBSQLite", "PostgresNIO", "CSQLite"}
for name in ["WalletModel", "TransparencyLog", "OnboardingCore", "TokenActivation", "TokenctlConfiguration", "ServiceAPI"]:
    for module in sorted(reached(name) & drivers):
        failures.append(f"{name} reaches {module}: the domain sees the store only through WalletModel's protocols")
if set(direct("TransparencyLog")) != {"Crypto"}:
    failures.append(f"TransparencyLog depends on {sorted(direct('TransparencyLog'))}: it is pure formats on swift-crypto")
for module in sorted(reached("Sandbox") & {"TokenActivation", "OnboardingCore", "TransparencyLog", "WalletModel"}):
    failures.append(f"Sandbox reaches {module}: the sandbox shares no client logic")
if "TokenctlService" in direct("tokenctl"):
    failures.append("tokenctl depends on TokenctlService: the executable reaches the service through ServiceCommand")
for folder in sorted(os.listdir("Sources")):
    if os.path.isdir(os.path.join("Sources", folder)) and folder not in targets:
        failures.append(f"Sources/{folder} is no target of Package.swift")
for directory, _, files in os.walk("Tests"):
    for file in files:
        path = os.path.join(directory, file)
        if file.endswith(".swift") and "processExitsWith" in open(path).read():
            failures.append(f"{path} has an exit test: they can hang the suite; use TestSupport's ChildRun")
for failure in failures:
    print("check-layout: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print("check-layout: the manifest follows the module layout")
PYTHON
