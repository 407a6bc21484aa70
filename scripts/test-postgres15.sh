#!/usr/bin/env bash
# Runs the test suite once more against PostgreSQL 15 from Debian's packages (the oldest version we support;
# the default run uses the embedded PostgreSQL 17). Used by CI; needs root for apt-get. Arguments are Vitest's file
# filters (CI passes the files that can differ, see .ci/run); without any, the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-packages.sh
debian_packages test-postgres15 "PostgreSQL 15" postgresql-15
dir=$(mktemp -d /tmp/auction-ops-pg15-XXXXXX)
chown postgres "$dir"
chmod 755 "$dir"
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
echo "$password" > "$dir/pw"
chown postgres "$dir/pw"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
pg() { su postgres -s /bin/sh -c "$*"; }
pg "/usr/lib/postgresql/15/bin/initdb -D $dir/data --auth=scram-sha-256 -U postgres --pwfile=$dir/pw >/dev/null"
pg "/usr/lib/postgresql/15/bin/pg_ctl -D $dir/data -l $dir/log -w -o '-p $port -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=off -c wal_level=logical -c max_replication_slots=32 -c max_wal_senders=32 -k $dir' start >/dev/null"
trap 'pg "/usr/lib/postgresql/15/bin/pg_ctl -D $dir/data -m fast stop" >/dev/null; rm -rf "$dir"' EXIT
echo "test-postgres15: $(pg "/usr/lib/postgresql/15/bin/postgres --version"), Node $(node --version)"
url="postgres://postgres:$password@127.0.0.1:$port/postgres"
TEST_DATABASE_URL="$url" npx -y pnpm@10 test "$@"
# rest-engine's packed command, PostgREST's tutorials 0 and 1 included, on this PostgreSQL too.
TEST_DATABASE_URL="$url" npx -y pnpm@10 check:npm-package
