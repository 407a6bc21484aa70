#!/usr/bin/env bash
# Runs the read-replica and connection-pooler tests (vitest.pg-cluster.config.ts): a PostgreSQL 15 primary with two
# streaming replicas made by pg_basebackup -R, and a primary behind PgBouncer in transaction mode, from Debian's
# postgresql-15 and pgbouncer packages. The tests start and stop the servers themselves (as the postgres OS user,
# on free loopback ports) under one temporary directory, removed here. Used by CI; needs root for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-packages.sh
debian_packages test-pg-cluster "PostgreSQL 15 and PgBouncer" postgresql-15 pgbouncer
export PG_CLUSTER_TMP
PG_CLUSTER_TMP=$(mktemp -d /tmp/auction-ops-pg-cluster-XXXXXX)
chmod 711 "$PG_CLUSTER_TMP"
cleanup() {
  # Normally the tests stop everything; after a crash, stop what is left (fast shutdown), then remove it all.
  for pidfile in "$PG_CLUSTER_TMP"/*/*/data/postmaster.pid; do
    [ -f "$pidfile" ] && kill -INT "$(head -1 "$pidfile")" 2>/dev/null || true
  done
  for pidfile in "$PG_CLUSTER_TMP"/*/pgbouncer.pid; do
    [ -f "$pidfile" ] && kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$PG_CLUSTER_TMP"
}
trap cleanup EXIT
echo "test-pg-cluster: $(/usr/lib/postgresql/15/bin/postgres --version), $(/usr/sbin/pgbouncer --version | head -1)"
PG_BIN_DIR=/usr/lib/postgresql/15/bin PGBOUNCER=/usr/sbin/pgbouncer npx vitest run --config vitest.pg-cluster.config.ts
