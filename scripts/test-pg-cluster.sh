#!/usr/bin/env bash
# Runs the read-replica and connection-pooler tests (vitest.pg-cluster.config.ts): a PostgreSQL 15 primary with two
# streaming replicas made by pg_basebackup -R, and a primary behind PgBouncer in transaction mode, from Debian's
# postgresql-15 and pgbouncer packages. The tests start and stop the servers themselves (as the postgres OS user,
# on free loopback ports) under one temporary directory, removed here. Used by CI; needs root for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  # In CI a skipped run would hide a failure: only a developer's machine may skip it.
  if [ "${CI:-}" = true ]; then
    echo "test-pg-cluster: needs root and apt-get to install PostgreSQL 15 and PgBouncer, and CI must run it" >&2
    exit 1
  fi
  echo "test-pg-cluster: needs root and apt-get to install PostgreSQL 15 and PgBouncer; skipped outside CI"
  exit 0
fi
if [ ! -x /usr/lib/postgresql/15/bin/pg_basebackup ] || [ ! -x /usr/sbin/pgbouncer ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 pgbouncer >/dev/null
fi
id postgres >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin postgres
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
