#!/usr/bin/env python3
"""A persistent HTTP/1.1 client on the service's Unix socket: activates each deeplink read
from standard input over one kept-alive connection, one after another, and prints the
median and 95th percentile of the answer times in milliseconds.

  service_client.py SOCKET < deeplinks
"""
import http.client
import json
import socket
import statistics
import sys
import time


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


connection = UnixConnection(sys.argv[1])
times = []
outcomes = {}
for line in sys.stdin:
    deeplink = line.strip()
    if not deeplink:
        continue
    body = json.dumps({"deeplink": deeplink})
    start = time.perf_counter()
    connection.request("POST", "/v1/activations", body=body, headers={"Content-Type": "application/json"})
    answer = connection.getresponse().read()
    times.append((time.perf_counter() - start) * 1000)
    outcome = json.loads(answer).get("outcome") or json.loads(answer).get("code")
    outcomes[outcome] = outcomes.get(outcome, 0) + 1
times.sort()
print("%.2f %.2f %s" % (statistics.median(times), times[int(len(times) * 0.95) - 1], json.dumps(outcomes, separators=(",", ":"))))
