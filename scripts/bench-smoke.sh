#!/usr/bin/env bash
# CI's smoke run of the benchmarks (`pnpm bench:smoke`): every `pnpm bench` target, day included, briefly and on
# small data, so that a benchmark that no longer runs fails CI; the figures are printed and not judged. bench rest
# drives its load with wrk and compares PgBouncer and a streaming read replica (PostgreSQL 15 with pg_basebackup),
# all from Debian's packages, installed here when missing (CI must have them: a skipped comparison would hide a
# broken one). Arguments go to `pnpm bench:smoke` (names, or `--except NAME`). Without root a developer's run goes on
# with what is installed (the benches say what they skip).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-packages.sh
# In a subshell: outside CI without root, debian_packages exits 0 to skip, and the smoke run should go on.
(debian_packages bench-smoke "wrk, PostgreSQL 15 and PgBouncer" wrk postgresql-15 pgbouncer)
[ -x /usr/lib/postgresql/15/bin/pg_basebackup ] && export PG_BIN_DIR=/usr/lib/postgresql/15/bin
[ -x /usr/sbin/pgbouncer ] && export PGBOUNCER=/usr/sbin/pgbouncer
started=$(date +%s)
npx -y pnpm@10 bench:smoke "$@"
echo "bench-smoke: the benchmarks ran in $(($(date +%s) - started)) s (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
