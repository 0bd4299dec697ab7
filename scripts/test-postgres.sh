#!/usr/bin/env bash
# test-postgres.sh start|stop|env — a private PostgreSQL 15 for the test suite and benchmarks.
#
#   eval "$(scripts/test-postgres.sh start)"   starts it (idempotent) and prints the exports:
#                                              TOKENCTL_TEST_DATABASE_URL, _PASSWORD and _CA (the
#                                              CA of the server's TLS certificate), PG* for psql
#   scripts/test-postgres.sh stop [--purge]    stops it (--purge also removes its files)
#   scripts/test-postgres.sh restart           stops it at once (as a crash would) and starts it again
#   scripts/test-postgres.sh standby [--async] a streaming standby of it (pg_basebackup -R) on the next
#                                              free port, synchronous unless --async; prints the
#                                              exports TOKENCTL_TEST_STANDBY_PORT and
#                                              TOKENCTL_TEST_FLEET_URL (both hosts, the server first)
#   scripts/test-postgres.sh kill              SIGKILLs the server (its processes and shared memory gone,
#                                              as when its machine dies)
#   scripts/test-postgres.sh promote           promotes the standby (pg_ctl promote) and waits until it
#                                              accepts writes
#   scripts/test-postgres.sh detach            the standby stops receiving the server's WAL (its
#                                              primary_conninfo emptied): what the server commits from
#                                              then on is lost when it dies (an asynchronous standby
#                                              behind)
#
# The server listens on 127.0.0.1 at the first free port from 25432 and on a private socket
# directory, under TEST_POSTGRES_DIR (default /tmp/tokenctl-test-postgres, make test's; give
# another one to try PostgreSQL by hand). Its data are
# throwaway: fsync is off unless TEST_POSTGRES_DURABLE=1 when the directory is first made;
# TEST_POSTGRES_STATEMENTS=1 then also loads pg_stat_statements (its tracking off until set).
# (These variables are the script's, not tokenctl's: tokenctl refuses unknown TOKENCTL_* ones.)
# Commits stay synchronous: a server stopped at once (restart) keeps every commit it
# answered, as the restart test checks; only a crash of the machine would lose them.
# initdb, pg_ctl and postgres refuse to run as root: as root they run as the postgres user.
set -euo pipefail

BIN=/usr/lib/postgresql/15/bin
DIR="$(realpath -m "${TEST_POSTGRES_DIR:-/tmp/tokenctl-test-postgres}")"
DATA="$DIR/data"
SOCKETS="$DIR/sockets"

as_server() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

require_server() {
    if [ ! -x "$BIN/initdb" ] || [ ! -x "$BIN/postgres" ]; then
        echo "test-postgres: PostgreSQL 15 is not installed; run make deps (apt-get install postgresql-15)" >&2
        exit 1
    fi
}

is_running() {
    [ -f "$DATA/postmaster.pid" ] && as_server "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

# The ports tried start below the range the kernel gives outgoing connections their local
# ports from (/proc/sys/net/ipv4/ip_local_port_range, 32768 and up by default): there, while
# a server is stopped, a client's connection elsewhere could take its port and keep it from
# starting again on it.
FIRST_PORT=25432
# A port no TCP socket uses. Sockets in TIME-WAIT do not count: the server binds over them
# (SO_REUSEADDR), and a server stopped a moment ago leaves its closed connections there, on
# the port it is to keep when started again.
port_in_use() { ss -Htan exclude time-wait "sport = :$1" | grep -q .; }
# A port some server listens on.
port_listened_on() { ss -Htln "sport = :$1" | grep -q .; }

# Each server claims its port for as long as its directory exists, with a link named after
# the port in CLAIMS to the directory: another private server started meanwhile (tests run
# side by side) never takes the port of a stopped one, to which its clients will reconnect.
# A link is made atomically, so two servers starting at once never claim the same port.
CLAIMS=/tmp/tokenctl-test-postgres-ports
claimed_by_another() {
    local owner
    owner="$(readlink "$CLAIMS/$1" 2>/dev/null)" || return 1
    [ "$owner" != "$DIR" ] && [ -d "$owner" ]
}
# Claims the port for this directory; fails when another server's directory holds it. A
# claim whose directory is gone is taken over.
claim() {
    mkdir -p "$CLAIMS" && chmod 1777 "$CLAIMS" 2>/dev/null || true
    ln -sn "$DIR" "$CLAIMS/$1" 2>/dev/null && return 0
    claimed_by_another "$1" && return 1
    ln -sfn "$DIR" "$CLAIMS/$1"
}
release() {
    [ "$(readlink "$CLAIMS/$1" 2>/dev/null)" = "$DIR" ] && rm -f "$CLAIMS/$1" || true
}

free_port() {
    local port=$FIRST_PORT
    while port_in_use "$port" || ! claim "$port"; do port=$((port + 1)); done
    echo "$port"
}

print_env() {
    local port
    port="$(cat "$DIR/port")"
    echo "export TOKENCTL_TEST_DATABASE_URL='postgres://tokenctl@127.0.0.1:$port/tokenctl?sslmode=disable' TOKENCTL_TEST_DATABASE_PASSWORD=tokenctl TOKENCTL_TEST_DATABASE_CA='$DIR/tls/ca.pem'"
    echo "export PGHOST=127.0.0.1 PGPORT=$port PGUSER=tokenctl PGPASSWORD=tokenctl PGDATABASE=tokenctl"
}

# A test CA and a server certificate it signs (localhost and 127.0.0.1), for the TLS tests.
make_certificates() {
    local tls="$DIR/tls"
    mkdir -p "$tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=tokenctl test CA" \
        -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$tls/san.ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 3650 \
        -extfile "$tls/san.ext" -out "$tls/server.pem" 2>/dev/null
    chmod 0644 "$tls/ca.pem" "$tls/server.pem"
    chmod 0600 "$tls/server.key" "$tls/ca.key"
    if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$tls"; chown root:root "$tls/ca.key"; fi
}

initialise() {
    rm -rf "$DATA" "$SOCKETS"
    mkdir -p "$DIR"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$DIR"; fi
    chmod 0755 "$DIR"
    as_server mkdir -p "$SOCKETS"
    make_certificates
    as_server env LC_ALL=C.UTF-8 "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >/dev/null
    local durable=off
    if [ "${TEST_POSTGRES_DURABLE:-0}" = 1 ]; then durable=on; fi
    # The superuser may connect over TCP without a password (tests create databases with it);
    # everyone else gives one.
    as_server sh -c "printf '%s\n' 'host all postgres 127.0.0.1/32 trust' | cat - '$DATA/pg_hba.conf' > '$DATA/pg_hba.new' && mv '$DATA/pg_hba.new' '$DATA/pg_hba.conf'"
    as_server sh -c "printf '%s\n' \"listen_addresses = '127.0.0.1'\" \"unix_socket_directories = '$SOCKETS'\" \
        'fsync = $durable' 'full_page_writes = $durable' \
        'dynamic_shared_memory_type = mmap' 'max_connections = 200' \
        'ssl = on' \"ssl_cert_file = '$DIR/tls/server.pem'\" \"ssl_key_file = '$DIR/tls/server.key'\" >> '$DATA/postgresql.conf'"
    # The benchmarks count statements per activation (pg_stat_statements, off until asked).
    if [ "${TEST_POSTGRES_STATEMENTS:-0}" = 1 ]; then
        as_server sh -c "printf '%s\n' \"shared_preload_libraries = 'pg_stat_statements'\" \"pg_stat_statements.track = 'none'\" >> '$DATA/postgresql.conf'"
    fi
}

start() {
    require_server
    if is_running; then print_env; return; fi
    if [ ! -f "$DATA/PG_VERSION" ]; then initialise; fi
    # A server started again (after stop) keeps its port unless another server listens on
    # it, so that a client of the stopped server finds it again: the stopped server's own
    # connections, still closing, hold the port but do not keep the new server from it.
    local port=""
    if [ -f "$DIR/port" ]; then
        port="$(cat "$DIR/port")"
        if port_listened_on "$port" || ! claim "$port"; then port=""; fi
    fi
    [ -n "$port" ] || port="$(free_port)"
    # A connection may take the port between the check and the server's bind: another one then.
    # A start may take long on a loaded machine (a recovery after an immediate stop): 120 s.
    local attempt
    for attempt in 1 2 3; do
        echo "$port" > "$DIR/port"
        as_server "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -o "-p $port" -w -t 120 start >/dev/null && break
        [ "$attempt" = 3 ] && { echo "test-postgres: the server did not start ($DIR/server.log)" >&2; exit 1; }
        release "$port"
        port="$(free_port)"
    done
    as_server "$BIN/psql" -X -q -w -v ON_ERROR_STOP=1 -h "$SOCKETS" -p "$port" -U postgres -d postgres <<'SQL'
SELECT 'CREATE ROLE tokenctl LOGIN PASSWORD ''tokenctl'' CREATEDB' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tokenctl') \gexec
SELECT 'CREATE DATABASE tokenctl OWNER tokenctl' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'tokenctl') \gexec
SQL
    print_env
}

stop() {
    if is_running; then as_server "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null; fi
    if [ "${1:-}" = --purge ]; then
        if [ -f "$DIR/port" ]; then release "$(cat "$DIR/port")"; fi
        rm -rf "$DIR"
    fi
}

restart() {
    local port
    port="$(cat "$DIR/port")"
    as_server "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t 30 stop >/dev/null
    as_server "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -o "-p $port" -w -t 120 start >/dev/null
}

STANDBY="$DIR/standby"

psql_on() {  # PORT SQL: one statement as the superuser, its rows unaligned
    as_server "$BIN/psql" -X -Atq -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"
}

# A standby of the running server. Facts that cost time: synchronous_standby_names is set on
# the server only after pg_basebackup (a standby that inherits it would, once promoted, wait
# for a standby of its own), and cleared in the standby's own settings; the standby's name in
# pg_stat_replication is the application_name of its primary_conninfo; the password goes into
# primary_conninfo, which pg_basebackup -R writes without it. The application role is granted
# pg_monitor, which db status needs to see the standbys' sync_state and replay lag.
standby() {
    require_server
    local port standby_port
    port="$(cat "$DIR/port")"
    as_server "$BIN/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres <<'SQL' >/dev/null
SELECT 'CREATE ROLE replicator REPLICATION LOGIN PASSWORD ''replicator''' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'replicator') \gexec
ALTER SYSTEM SET wal_keep_size = '256MB';
SELECT pg_reload_conf();
GRANT pg_monitor TO tokenctl;
SQL
    rm -rf "$STANDBY"
    as_server mkdir -p "$STANDBY" "$DIR/standby-sockets"
    as_server chmod 0700 "$STANDBY"
    as_server env PGPASSWORD=replicator "$BIN/pg_basebackup" -D "$STANDBY" -R -X stream -c fast --no-sync \
        -d "host=127.0.0.1 port=$port user=replicator application_name=standby1" >/dev/null
    standby_port="$(DIR="$STANDBY" free_port)"
    echo "$standby_port" > "$DIR/standby-port"
    as_server sh -c "printf '%s\n' \"unix_socket_directories = '$DIR/standby-sockets'\" \"synchronous_standby_names = ''\" >> '$STANDBY/postgresql.conf'"
    as_server sh -c "printf '%s\n' \"primary_conninfo = 'host=127.0.0.1 port=$port user=replicator password=replicator application_name=standby1'\" >> '$STANDBY/postgresql.auto.conf'"
    as_server "$BIN/pg_ctl" -D "$STANDBY" -l "$DIR/standby.log" -o "-p $standby_port" -w -t 120 start >/dev/null
    local mode=sync
    if [ "${1:-}" = --async ]; then
        mode=async
    else
        psql_on "$port" "ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (standby1)'" >/dev/null
        psql_on "$port" "SELECT pg_reload_conf()" >/dev/null
    fi
    local _
    for _ in $(seq 300); do
        [ "$(psql_on "$port" "SELECT application_name||'|'||state||'|'||sync_state FROM pg_stat_replication")" = "standby1|streaming|$mode" ] && break
        sleep 0.1
    done
    echo "export TOKENCTL_TEST_STANDBY_PORT=$standby_port TOKENCTL_TEST_FLEET_URL='postgres://tokenctl@127.0.0.1:$port,127.0.0.1:$standby_port/tokenctl?sslmode=disable'"
}

# The server dies as its machine would: every process at once, nothing flushed or closed.
kill_server() {
    [ -f "$DATA/postmaster.pid" ] || return 0
    local pid shm
    pid="$(head -1 "$DATA/postmaster.pid")"
    shm="$(sed -n 7p "$DATA/postmaster.pid" | awk '{print $2}')"
    # pg_ctl starts the server as a process group leader: the group is the whole server.
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    if [ -n "$shm" ]; then as_server ipcrm -m "$shm" 2>/dev/null || true; fi
}

promote() {
    as_server "$BIN/pg_ctl" -D "$STANDBY" -w -t 60 promote >/dev/null
    local _
    for _ in $(seq 300); do
        [ "$(psql_on "$(cat "$DIR/standby-port")" "SELECT pg_is_in_recovery()")" = f ] && return 0
        sleep 0.1
    done
    echo "test-postgres: the standby was not promoted ($DIR/standby.log)" >&2
    exit 1
}

detach() {
    local standby_port _
    standby_port="$(cat "$DIR/standby-port")"
    psql_on "$standby_port" "ALTER SYSTEM SET primary_conninfo = ''" >/dev/null
    psql_on "$standby_port" "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 300); do
        [ "$(psql_on "$standby_port" "SELECT count(*) FROM pg_stat_wal_receiver")" = 0 ] && return 0
        sleep 0.1
    done
    echo "test-postgres: the standby still receives WAL ($DIR/standby.log)" >&2
    exit 1
}

stop_standby() {
    if [ -f "$STANDBY/postmaster.pid" ]; then
        as_server "$BIN/pg_ctl" -D "$STANDBY" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    fi
    if [ -f "$DIR/standby-port" ]; then DIR="$STANDBY" release "$(cat "$DIR/standby-port")"; fi
}

case "${1:-}" in
    start) start ;;
    restart) restart ;;
    stop) stop_standby; stop "${2:-}" ;;
    env) print_env ;;
    standby) standby "${2:-}" ;;
    kill) kill_server ;;
    promote) promote ;;
    detach) detach ;;
    *) echo "usage: $0 start|stop [--purge]|restart|env|standby [--async]|kill|promote|detach" >&2; exit 2 ;;
esac
