#!/usr/bin/env bash
# DESIGN §5's "Nowhere" list: outside Sources/HTTPTransport (whose transfer thread is the one
# thread tokenctl starts), no `.wait()`, semaphore, condition, DispatchGroup, thread start or
# send on libdispatch's global queue. Code that waits awaits the driver's or the transport's
# async call instead.
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
failures = []
for directory, _, files in os.walk("Sources"):
    if directory.startswith("Sources/HTTPTransport"):
        continue
    for file in sorted(files):
        if not file.endswith(".swift"):
            continue
        path = os.path.join(directory, file)
        for number, line in enumerate(open(path), 1):
            if line.lstrip().startswith("//"):
                continue
            for name, pattern in patterns.items():
                if re.search(pattern, line):
                    failures.append(f"{path}:{number}: a blocking {name} site: "
                                    "await the driver's or the transport's async call instead")
for failure in failures:
    print("check-concurrency: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print("check-concurrency: no blocking site outside Sources/HTTPTransport")
PYTHON
