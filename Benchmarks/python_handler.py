"""The same work as `tokenctl activate --batch`, the way a Python handler would do it:
parse each deeplink, look the pass up in SQLite, commit a "started" row, POST with a
requests.Session (keep-alive), commit the outcome. Sequential, as such handlers are.

    python3 python_handler.py DATABASE BASE_URL DEEPLINKS_FILE
"""
import json
import sqlite3
import sys
import time
import urllib.parse
import uuid

import requests


def main():
    database, base_url, path = sys.argv[1:4]
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS python_audit (request_id TEXT, serial TEXT, event TEXT, outcome TEXT)")
    session = requests.Session()
    url = base_url.rstrip("/") + "/issuer/push-provisioning/tokens/activations"
    outcomes = {}
    started = time.monotonic()
    with open(path) as lines:
        for line in lines:
            query = urllib.parse.urlsplit(line.strip()).query
            serial = urllib.parse.parse_qs(query).get("serialNumber", [None])[0]
            row = db.execute(
                "SELECT device_account_identifier FROM pass_record WHERE serial_number = ? AND state = 'requiresActivation'",
                (serial,),
            ).fetchone()
            if row is None:
                outcomes["ERROR"] = outcomes.get("ERROR", 0) + 1
                continue
            request_id = str(uuid.uuid4())
            db.execute("INSERT INTO python_audit VALUES (?, ?, 'started', NULL)", (request_id, serial))
            response = session.post(url, json={"tokenUniqueReference": row[0]},
                                    headers={"X-Request-ID": request_id, "Accept": "application/json"}, timeout=15)
            outcome = response.json().get("issuerMobileAppAuthResponse", "ERROR")
            db.execute("BEGIN")
            db.execute("INSERT INTO python_audit VALUES (?, ?, 'finished', ?)", (request_id, serial, outcome))
            if outcome == "APPROVED":
                db.execute("UPDATE pass_record SET state = 'activated' WHERE serial_number = ?", (serial,))
            db.execute("COMMIT")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    elapsed = time.monotonic() - started
    count = sum(outcomes.values())
    print(json.dumps({"lines": count, "seconds": round(elapsed, 3), "perSecond": round(count / elapsed), "outcomes": outcomes}))


if __name__ == "__main__":
    main()
