#!/usr/bin/env python3
"""Appends activation attempts to a tokenctl SQLite database's audit: a started and a
finished row each, hash-chained exactly as tokenctl chains them, in one transaction.

  make_audit.py DATABASE ATTEMPTS
"""
import hashlib, json, sqlite3, sys

KEYS = ["attempt", "event", "at", "request", "serial", "passType", "token", "device", "deeplink",
        "pid", "ownerStart", "outcome", "error", "http", "last4", "comment", "latency"]


def hashed_text(values, previous):
    parts = ['"previous": ' + json.dumps(previous)] + ['"%s": %s' % (k, json.dumps(v)) for k, v in zip(KEYS, values)]
    return ("{" + ", ".join(parts) + "}").encode()


def main():
    db = sqlite3.connect(sys.argv[1])
    attempts = int(sys.argv[2])
    last = db.execute("SELECT seq, hash, coalesce((SELECT max(attempt_id) FROM audit_row), 0) FROM audit_row ORDER BY seq DESC LIMIT 1").fetchone()
    seq, previous, attempt = last if last else (0, "0" * 64, 0)
    rows = []
    for _ in range(attempts):
        attempt += 1
        serial, token = "SN%d" % attempt, "DAPL%012d" % attempt
        at = "2026-11-27T08:00:00.%03dZ" % (attempt % 1000)
        for event in ("started", "finished"):
            finished = event == "finished"
            values = [attempt, event, at, "request-%d" % attempt, serial, "paymentpass.com.apple", token, None,
                      "ab" * 32, None if finished else 4242, None if finished else "1000", "APPROVED" if finished else None,
                      None, 200 if finished else None, None, None, 120 if finished else None]
            digest = hashlib.sha256(hashed_text(values, previous)).hexdigest()
            seq += 1
            rows.append([seq] + values + [previous, digest])
            previous = digest
    db.executemany("INSERT INTO audit_row (seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier, "
                   "token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code, "
                   "http_status, card_last4, comment, latency_ms, previous_hash, hash) VALUES (%s)" % ", ".join("?" * 20), rows)
    db.commit()


main()
