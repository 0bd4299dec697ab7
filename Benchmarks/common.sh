# Shared by the benchmark scripts (sourced): the tools they need, a sandbox on a free port,
# generated passes and deeplinks, a fresh database, wrk's scripts. Expects $bin and $work.

install_tools() { # tools...
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "bench: installing $tool"; apt-get install -y -qq "$tool" >/dev/null 2>&1 || sudo apt-get install -y -qq "$tool" >/dev/null; }
  done
  python3 -c 'import requests' 2>/dev/null || pip install -q requests
}

# Starts `tokenctl sandbox` on a free port with its log discarded (a write per request would
# slow it); sets sandbox_pid, url and endpoint, and TOKENCTL_TMP_BASE_URL.
start_sandbox() {
  "$bin/tokenctl" sandbox --port 0 > "$work/sandbox.log" &
  sandbox_pid=$!
  for _ in $(seq 100); do grep -q '^listening ' "$work/sandbox.log" 2>/dev/null && break; sleep 0.05; done
  url=$(sed -n 's/^listening //p' "$work/sandbox.log")
  kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
  "$bin/tokenctl" sandbox --port "${url##*:}" > /dev/null &
  sandbox_pid=$!
  sleep 0.3
  export TOKENCTL_TMP_BASE_URL="$url"
  endpoint="$url/issuer/push-provisioning/tokens/activations"
}

passes() { # count prefix -> CSV
  awk -v n="$1" -v p="$2" 'BEGIN { print "serialNumber,deviceAccountIdentifier"; for (i = 0; i < n; i++) printf "%s%d,DAPL%012d\n", p, i, i }'
}
deeplinks() { awk -v n="$1" -v p="$2" 'BEGIN { for (i = 0; i < n; i++) printf "mybank://activate?serialNumber=%s%d\n", p, i }'; }
fresh_db() { rm -f "$work"/db.sqlite*; export TOKENCTL_DATABASE_PATH="$work/db.sqlite"; "$bin/tokenctl" wallet import "$1" > /dev/null; }

# wrk's script for the activation POST, at $work/post.lua.
write_post_lua() {
  cat > "$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"tokenUniqueReference": "DAPL000000000001"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
LUA
}

# wrk's script for single activations through the service's API, at $work/activate.lua: each
# wrk thread activates its own serials, $WRK_PREFIX<thread>_N, N = 1, 2, ...
write_activate_lua() {
  cat > "$work/activate.lua" <<'LUA'
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local counter = 0
local prefix = os.getenv("WRK_PREFIX") or "T"
request = function()
  counter = counter + 1
  local body = '{"deeplink": "mybank://activate?serialNumber=' .. prefix .. id .. '_' .. counter .. '"}'
  return wrk.format("POST", "/v1/activations", {["Content-Type"] = "application/json"}, body)
end
LUA
}
