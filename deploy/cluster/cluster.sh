#!/usr/bin/env bash
# A local Hearth cluster: PostgreSQL 15 with a synchronous standby managed by pg_auto_failover
# (a monitor and two data nodes), two Hearth instances on the multi-host URL, and haproxy in
# front of them with health checks on /readyz. Debian's postgresql-15-auto-failover and haproxy.
#
#   deploy/cluster/cluster.sh start            everything; prints the URLs
#   deploy/cluster/cluster.sh start-postgres   the monitor and the two nodes only
#   deploy/cluster/cluster.sh stop             stops what start started (and removes nothing)
#   deploy/cluster/cluster.sh state            pg_auto_failover's view of the nodes
#   deploy/cluster/cluster.sh uri              the multi-host URL Hearth connects with
#   deploy/cluster/cluster.sh stop-node N      stops data node N at once (pg_autoctl stop --fast)
#   deploy/cluster/cluster.sh start-node N     starts data node N again (it rejoins as a standby)
#   deploy/cluster/cluster.sh haproxy-config FRONT PORT…   prints haproxy's configuration for them
#
# Settings (environment): HEARTH_CLUSTER_DIR (default /tmp/hearth-cluster), HEARTH_CLUSTER_PORT
# (the base port, default 56000: monitor on it, nodes on +1 and +2, haproxy on +10, Hearth on
# +11 and +12). docs/operations.md describes the layout and the failover settings.
set -euo pipefail

DIR=${HEARTH_CLUSTER_DIR:-/tmp/hearth-cluster}
BASE=${HEARTH_CLUSTER_PORT:-56000}
MONITOR_PORT=$BASE
FRONT_PORT=$((BASE + 10))
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
HOST=127.0.0.1
MONITOR_URL="postgres://autoctl_node@${HOST}:${MONITOR_PORT}/pg_auto_failover?sslmode=disable"

# pg_autoctl refuses to run as root: as root, the cluster runs as the postgres user.
if [ "$(id -u)" = 0 ]; then
  OWNER=postgres
  as_owner() { runuser -u postgres -- env PATH="$PG_BIN:$PATH" "$@"; }
else
  OWNER=$(id -un)
  as_owner() { env PATH="$PG_BIN:$PATH" "$@"; }
fi

log() { printf '[cluster] %s\n' "$*" >&2; }

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1
  shift
  for _ in $(seq 1 $((seconds * 2))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "gave up after ${seconds}s waiting for: $*"
  return 1
}

monitor_sql() { psql -h "$HOST" -p "$MONITOR_PORT" -U "$OWNER" -d pg_auto_failover -Atqc "$1"; }
nodes_in() { [ "$(monitor_sql "select count(*) from pgautofailover.node where reportedstate = '$1' and goalstate = '$1'")" -ge "${2:-1}" ]; }

# Starts a pg_autoctl process in the background, its output in DIR/NAME.log, its pid in DIR/NAME.pid.
run_keeper() {
  local name=$1
  shift
  as_owner setsid "$@" >"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

start_monitor() {
  mkdir -p "$DIR"
  [ "$OWNER" = postgres ] && chown postgres:postgres "$DIR"
  log "monitor on port $MONITOR_PORT"
  run_keeper monitor pg_autoctl create monitor --pgdata "$DIR/monitor" --pgport "$MONITOR_PORT" \
    --hostname "$HOST" --auth trust --no-ssl --run
  wait_for 120 monitor_sql 'select 1'
  # Failover within seconds rather than the defaults' 20-30 s: the monitor checks each node every
  # second and gives up on one after 3 s without an answer; a primary that cannot be reached
  # is given 3 s to demote itself before its standby is promoted.
  local setting
  for setting in health_check_period=1000 health_check_timeout=1000 health_check_max_retries=1 \
    health_check_retry_delay=500 node_considered_unhealthy_timeout=3000 primary_demote_timeout=3000; do
    monitor_sql "alter system set pgautofailover.${setting%%=*} = ${setting#*=}" >/dev/null
  done
  monitor_sql 'select pg_reload_conf()' >/dev/null
}

start_node() {
  local n=$1
  local port=$((BASE + n))
  log "data node $n on port $port"
  if [ -d "$DIR/node$n" ]; then
    run_keeper "node$n" pg_autoctl run --pgdata "$DIR/node$n"
    return
  fi
  run_keeper "node$n" pg_autoctl create postgres --pgdata "$DIR/node$n" --pgport "$port" \
    --hostname "$HOST" --name "node_$n" --auth trust --no-ssl --monitor "$MONITOR_URL" --run
}

uri() {
  echo "postgres://${OWNER}@${HOST}:$((BASE + 1)),${HOST}:$((BASE + 2))/postgres?target_session_attrs=read-write&sslmode=disable"
}

start_postgres() {
  start_monitor
  start_node 1
  wait_for 180 nodes_in single
  start_node 2
  wait_for 240 nodes_in secondary
  wait_for 60 nodes_in primary
  log "primary and synchronous standby are up"
  uri
}

start_hearth() {
  local n=$1
  local port=$((BASE + 10 + n))
  log "Hearth instance $n on port $port"
  (
    cd "$REPO"
    DATABASE_URL=$(uri) PORT=$port HOST=$HOST \
      setsid node --import tsx server/src/main.ts >"$DIR/hearth$n.log" 2>&1 </dev/null &
    echo $! >"$DIR/hearth$n.pid"
  )
  wait_for 120 curl -sf "http://$HOST:$port/readyz"
}

# The load balancer's configuration, on stdout: the front on port $1, an instance on each further
# port, health checks every HEARTH_CLUSTER_CHECK_INTERVAL (1s). test/cluster/instance-kill.test.ts
# runs its instances behind the same configuration.
haproxy_config() {
  local front=$1
  shift
  cat <<CFG
global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # A WebSocket (/sync) stays open for hours; haproxy passes the upgrade through.
  timeout tunnel 1h
  option redispatch
  retries 2
frontend hearth
  bind ${HOST}:${front}
  default_backend instances
backend instances
  balance leastconn
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter ${HEARTH_CLUSTER_CHECK_INTERVAL:-1s} fall 2 rise 1
CFG
  local n=0
  for port in "$@"; do
    n=$((n + 1))
    echo "  server hearth$n ${HOST}:$port check"
  done
}

start_haproxy() {
  haproxy_config "$FRONT_PORT" $((BASE + 11)) $((BASE + 12)) >"$DIR/haproxy.cfg"
  log "haproxy on port $FRONT_PORT"
  haproxy -D -f "$DIR/haproxy.cfg" -p "$DIR/haproxy.pid"
  wait_for 30 curl -sf "http://$HOST:$FRONT_PORT/healthz"
}

stop_pid() {
  local file=$DIR/$1.pid
  [ -f "$file" ] || return 0
  local pid
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

stop_all() {
  stop_pid haproxy
  stop_pid hearth1
  stop_pid hearth2
  for name in node2 node1 monitor; do
    [ -d "$DIR/$name" ] && as_owner pg_autoctl stop --pgdata "$DIR/$name" --fast >/dev/null 2>&1 || true
    stop_pid "$name"
    # A postgres left behind by a keeper that was killed.
    if [ -f "$DIR/$name/postmaster.pid" ]; then
      as_owner pg_ctl stop -D "$DIR/$name" -m immediate >/dev/null 2>&1 || true
    fi
  done
}

case "${1:-}" in
  start)
    start_postgres >/dev/null
    start_hearth 1
    start_hearth 2
    start_haproxy
    echo "database: $(uri)"
    echo "hearth:   http://$HOST:$FRONT_PORT (instances on $((BASE + 11)) and $((BASE + 12)))"
    ;;
  start-postgres) start_postgres ;;
  stop) stop_all ;;
  state) as_owner pg_autoctl show state --pgdata "$DIR/monitor" ;;
  uri) uri ;;
  stop-node)
    as_owner pg_autoctl stop --pgdata "$DIR/node$2" --fast
    stop_pid "node$2"
    ;;
  start-node) start_node "$2" ;;
  haproxy-config)
    shift
    haproxy_config "$@"
    ;;
  *)
    sed -n '2,18p' "$0"
    exit 2
    ;;
esac
