#!/usr/bin/env bash
# DESIGN §5's "Nowhere" list, as a ratchet while the one concurrency model is built: outside
# Sources/HTTPTransport, no `.wait()`, semaphore, condition, DispatchGroup, thread start or
# send on libdispatch's global queue. Each site still left is listed in
# scripts/concurrency-allowance.txt (FILE PATTERN COUNT); a new site fails, and so does an
# allowance a change has made too large (shrink it: the list only gets shorter).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PYTHON'
import os, re, sys

patterns = {
    "wait": r"\.wait\(\)",
    "semaphore": r"\bDispatchSemaphore\b",
    "condition": r"\bNSCondition\b",
    "group": r"\bDispatchGroup\b",
    "thread": r"\bThread\.start\b|\bThread\(|\bThread \{|\bpthread_create\b|\bThread\.detachNewThread\b",
    "global-queue": r"DispatchQueue\.global\(",
}
found = {}
for directory, _, files in os.walk("Sources"):
    if directory.startswith("Sources/HTTPTransport"):
        continue
    for file in sorted(files):
        if not file.endswith(".swift"):
            continue
        path = os.path.join(directory, file)
        lines = [line for line in open(path) if not line.lstrip().startswith("//")]
        for name, pattern in patterns.items():
            count = sum(len(re.findall(pattern, line)) for line in lines)
            if count:
                found[(path, name)] = count
allowed = {}
for line in open("scripts/concurrency-allowance.txt"):
    if line.strip() and not line.startswith("#"):
        path, name, count = line.split()
        allowed[(path, name)] = int(count)
failures = []
for key, count in sorted(found.items()):
    if count > allowed.get(key, 0):
        failures.append(f"{key[0]}: {count} {key[1]} site(s), {allowed.get(key, 0)} allowed: "
                        "await the driver's or the transport's async call instead")
for key, count in sorted(allowed.items()):
    if found.get(key, 0) < count:
        failures.append(f"{key[0]}: {key[1]} allowed {count}, now {found.get(key, 0)}: "
                        "shrink scripts/concurrency-allowance.txt")
for failure in failures:
    print("check-concurrency: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"check-concurrency: {sum(found.values())} blocking sites left outside Sources/HTTPTransport, none new")
PYTHON
