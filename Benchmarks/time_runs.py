#!/usr/bin/env python3
"""Runs COMMAND... DEEPLINK once per deeplink read from standard input (a new process each
time, as a deeplink handler is run) and prints the median and 95th percentile wall time
in milliseconds.

  time_runs.py COMMAND [ARGUMENT...] < deeplinks
"""
import statistics
import subprocess
import sys
import time

times = []
for line in sys.stdin:
    deeplink = line.strip()
    if not deeplink:
        continue
    start = time.perf_counter()
    subprocess.run(sys.argv[1:] + [deeplink], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
times.sort()
print("%.2f %.2f" % (statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]))
