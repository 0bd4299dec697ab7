#!/usr/bin/env bash
# Installs the Debian packages on this machine and tries them as an operator would:
# `tokenctl --version`, `tokenctl config check` on the installed configuration (which must
# name its placeholders), `tokenctl sandbox` without the sandbox's package (which must name
# it), the sandbox's package installed beside, then `tokenctl serve` as the tokenctl user under
# systemd-socket-activate (the socket passed in, as tokenctl.socket does) with the TMP token
# passed as a credential, one activation through the socket (curl) and one through the
# installed handler, against the sandbox; then `dpkg --purge` must leave none of the
# packages' files behind (the tokenctl account stays, as Debian policy asks).
# Needs root (dpkg -i); says so and succeeds without it.
# Usage: scripts/package-test.sh DEB SANDBOX_DEB   (tokenctl's package, tokenctl-sandbox's)
set -euo pipefail
cd "$(dirname "$0")/.."
package=$(realpath "${1:?usage: scripts/package-test.sh DEB SANDBOX_DEB}")
sandbox_package=$(realpath "${2:?usage: scripts/package-test.sh DEB SANDBOX_DEB}")
if [ "$(id -u)" != 0 ]; then
  echo "package-test: skipped: installing a package needs root (CI runs as root)"
  exit 0
fi
if dpkg-query -W -f '${Status}' tokenctl 2>/dev/null | grep -q "installed"; then
  echo "package-test: skipped: a tokenctl package is already installed here; not touching it"
  exit 0
fi
work=$(mktemp -d)
sandbox_pid=
service_pid=
cleanup() {
  [ -z "$service_pid" ] || kill "$service_pid" 2>/dev/null || true
  [ -z "$sandbox_pid" ] || kill "$sandbox_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  dpkg --purge tokenctl-sandbox tokenctl > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "package-test: $*" >&2; exit 1; }

dpkg -i "$package" > "$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "dpkg -i failed"; }
dpkg -L tokenctl | sort > "$work/files"
echo "package-test: installed $(basename "$package"): $(grep -c . "$work/files") paths"
version=$(/usr/bin/tokenctl --version)
[ "$version" = "$(dpkg-query -W -f '${Version}' tokenctl)" ] || fail "tokenctl --version says $version"
# tokenctl-serve is the one executable by another name: the service's own command line.
serve_help=$(/usr/bin/tokenctl-serve --help)
grep -q '^USAGE: tokenctl serve ' <<<"$serve_help" || fail "tokenctl-serve --help is not the service's help"
installed=$(dpkg-query -W -f '${Installed-Size}' tokenctl)
echo "package-test: Installed-Size ${installed} KiB"
id tokenctl > /dev/null || fail "no tokenctl account after install"
[ "$(stat -c %U:%a /var/lib/tokenctl)" = tokenctl:700 ] || fail "/var/lib/tokenctl is $(stat -c %U:%a /var/lib/tokenctl)"
for page in tokenctl tokenctl-activate tokenctl-serve tokenctl-wallet-import; do
  [ -f "/usr/share/man/man1/$page.1.gz" ] || fail "no man page $page"
done

# The installed configuration is the production example: check names its placeholders.
set +e
/usr/bin/tokenctl config check > "$work/check.out" 2> "$work/check.err"
status=$?
set -e
[ "$status" = 78 ] || fail "config check on the installed configuration exited $status, not 78"
grep -q "tmp.base-url is still the placeholder https://tmp.example.com" "$work/check.err" || { cat "$work/check.err" >&2; fail "config check did not name the placeholder"; }
echo "package-test: config check on /etc/tokenctl/config.json: 78, names the placeholders"

# A production host has no simulator: the command names the package that brings it.
set +e
/usr/bin/tokenctl sandbox --port 0 > "$work/nosandbox.out" 2> "$work/nosandbox.err"
status=$?
set -e
[ "$status" = 69 ] && grep -q "(sandbox.notInstalled)" "$work/nosandbox.err" && grep -q "tokenctl-sandbox package" "$work/nosandbox.err" \
  || fail "tokenctl sandbox without tokenctl-sandbox exited $status: $(cat "$work/nosandbox.err")"
echo "package-test: tokenctl sandbox without the tokenctl-sandbox package: 69, sandbox.notInstalled"
# The documentation a reader looks for in /usr/share/doc/tokenctl.
for document in guide.md.gz operations.md.gz exit-codes.md.gz README.md.gz openapi.yaml.gz; do
  [ -s "/usr/share/doc/tokenctl/$document" ] || fail "/usr/share/doc/tokenctl/$document is not installed"
done
# The sandbox package's description as written (a shell expansion at build time garbled it).
description=$(dpkg-deb -f "$sandbox_package" Description)
grep -q 'which "tokenctl sandbox" and' <<< "$description" || fail "tokenctl-sandbox's Description is not as written: $description"
echo "package-test: tokenctl-sandbox's Description as written"
dpkg -i "$sandbox_package" > "$work/install-sandbox.log" 2>&1 || { cat "$work/install-sandbox.log" >&2; fail "dpkg -i $(basename "$sandbox_package") failed"; }
/usr/bin/tokenctl-sandbox --version > /dev/null || fail "tokenctl-sandbox --version failed"
help=$(/usr/bin/tokenctl-sandbox --help)
grep -q "USAGE: tokenctl-sandbox" <<< "$help" || fail "tokenctl-sandbox --help does not name tokenctl-sandbox"
help=$(/usr/bin/tokenctl --database "$work/unused.sqlite" sandbox --help)
grep -q "witness" <<< "$help" || fail "tokenctl --database F sandbox --help failed"
dpkg -L tokenctl-sandbox | sort > "$work/sandbox-files"
echo "package-test: installed $(basename "$sandbox_package"): $(grep -c . "$work/sandbox-files") paths, Installed-Size $(dpkg-query -W -f '${Installed-Size}' tokenctl-sandbox) KiB"

# The sandbox, and a configuration made from the installed one pointing at it.
/usr/bin/tokenctl sandbox --port 0 > "$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^listening ' "$work/sandbox.log" && break; sleep 0.05; done
url=$(sed -n 's/^listening //p' "$work/sandbox.log")
[ -n "$url" ] || fail "the sandbox did not start"
python3 - "$url" > "$work/config.json" <<'PY'
import json, sys
url = sys.argv[1]
config = json.load(open("/etc/tokenctl/config.json"))
config["tmp"].update({"base-url": url, "tls": {"ca-file": None, "client-cert-file": None, "client-key-file": None}})
config["onboarding"].update({"base-url": url, "require-finished-user-activation": False, "require-pin-login-within-seconds": None})
config["onboarding"]["tls"]["ca-file"] = None
config["onboarding"]["powerauth"].update({"base-url": None, "application-key": None, "application-secret-file": None, "master-server-public-key": None})
config["login"].update({"backend-url": url, "relying-party-url": url + "/rp"})
config["database"].update({"password-file": None, "tls": {"ca-file": None}})
print(json.dumps(config))
PY
chmod 644 "$work/config.json"
credentials=$work/credentials
install -d -m 700 -o tokenctl "$credentials"
echo "sandbox-token" > "$credentials/tmp.token"
chown tokenctl "$credentials/tmp.token"
chmod 600 "$credentials/tmp.token"
chmod 755 "$work"
as_tokenctl() { setpriv --reuid=tokenctl --regid=tokenctl --init-groups env CREDENTIALS_DIRECTORY="$credentials" "$@"; }
as_tokenctl /usr/bin/tokenctl --config "$work/config.json" config check > "$work/check2.out" 2>&1 || { cat "$work/check2.out" >&2; fail "config check with the sandbox's addresses failed"; }
grep -q "bearer token" "$work/check2.out" || fail "the TMP token credential was not read: $(cat "$work/check2.out")"
# root creating the service's database would make it root's alone: refused, naming the way.
status=0
CREDENTIALS_DIRECTORY="$credentials" /usr/bin/tokenctl --config "$work/config.json" wallet add --serial SNROOT --device-account-id DAPLROOT0000 \
  > "$work/root.out" 2> "$work/root.err" || status=$?
[ "$status" = 74 ] && grep -q "sudo -u tokenctl" "$work/root.err" && [ ! -e /var/lib/tokenctl/tokenctl.sqlite ] \
  || fail "root creating the service's database exited $status: $(cat "$work/root.err")"
echo "package-test: root creating /var/lib/tokenctl's database: 74, naming sudo -u tokenctl"
as_tokenctl /usr/bin/tokenctl --config "$work/config.json" wallet import Deeplinks/example-passes.csv > /dev/null

socket=/run/tokenctl/tokenctl.sock
systemd-socket-activate -l "$socket" -- setpriv --reuid=tokenctl --regid=tokenctl --init-groups \
  env CREDENTIALS_DIRECTORY="$credentials" /usr/bin/tokenctl serve --config "$work/config.json" > "$work/serve.log" 2>&1 &
service_pid=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
# As tokenctl.socket makes it (SocketUser=, SocketGroup=, SocketMode=0660).
chown tokenctl:tokenctl "$socket"
chmod 0660 "$socket"
answer=$(curl -sS --unix-socket "$socket" -H 'Content-Type: application/json' \
  -d '{"deeplink": "mybank://activate?serialNumber=SN1000000001"}' http://localhost/v1/activations) \
  || fail "no answer on $socket: $(cat "$work/serve.log")"
grep -q '"outcome": "APPROVED"' <<<"$answer" || fail "the activation through the socket answered: $answer"
echo "package-test: tokenctl serve as tokenctl under systemd-socket-activate: APPROVED through $socket"
set +e
handled=$(setpriv --reuid=tokenctl --regid=tokenctl --init-groups env TOKENCTL_SERVICE_SOCKET="$socket" /usr/bin/tokenctl-handler 'mybank://activate?serialNumber=SN1000000002&action=verify' 2>&1)
status=$?
set -e
[ "$status" = 2 ] && grep -q '"outcome": "DECLINED"' <<<"$handled" || fail "the installed handler exited $status: $handled"
# Through the service, not the command's fallback: the service counted it.
# Read whole before grep looks (grep -q stops reading at the match, and under pipefail
# curl's failed write would fail the check).
metrics=$(curl -sS --unix-socket "$socket" http://localhost/metrics)
grep -q '^tokenctl_activations_total{outcome="DECLINED"} 1' <<<"$metrics" \
  || fail "the handler's activation did not go through the service"
echo "package-test: /usr/bin/tokenctl-handler through the socket: DECLINED, exit 2"
kill -TERM "$service_pid"
wait "$service_pid" || fail "tokenctl serve did not stop cleanly: $(tail -5 "$work/serve.log")"
service_pid=

kill -TERM "$sandbox_pid"
wait "$sandbox_pid" 2>/dev/null || true
sandbox_pid=
dpkg --purge tokenctl-sandbox tokenctl > "$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; fail "dpkg --purge failed"; }
left=$(cat "$work/files" "$work/sandbox-files" | while read -r path; do [ -e "$path" ] && [ ! -d "$path" ] && echo "$path"; done; \
  for directory in /etc/tokenctl /var/lib/tokenctl /run/tokenctl /usr/share/doc/tokenctl /usr/share/doc/tokenctl-sandbox; do [ -e "$directory" ] && echo "$directory"; done; true)
[ -z "$left" ] || fail "dpkg --purge left: $left"
echo "package-test: dpkg --purge left none of the package's files (the tokenctl account stays, as Debian policy asks)"
