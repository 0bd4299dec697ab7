#!/bin/sh
# The plain shell handler the single-activation figure is compared with: sqlite3 lookup,
# curl POST, sqlite3 insert. DB and URL come from the environment; CURL_TLS may add curl's
# TLS options (--cacert, --cert, --key) for a TMP behind TLS.
serial=${1#*serialNumber=}
serial=${serial%%&*}
account=$(sqlite3 "$DB" "SELECT device_account_identifier FROM pass_record WHERE serial_number = '$serial' AND state = 'requiresActivation'")
# shellcheck disable=SC2086
answer=$(curl -s ${CURL_TLS:-} -X POST -H 'Content-Type: application/json' -H 'Accept: application/json' \
  -d "{\"tokenUniqueReference\": \"$account\"}" "$URL/issuer/push-provisioning/tokens/activations")
sqlite3 "$DB" "INSERT INTO shell_audit VALUES ('$serial', '$(printf %s "$answer" | tr -d "'")')"
