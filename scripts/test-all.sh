#!/usr/bin/env bash
# Every check and every test: the whole suite on the embedded PostgreSQL, then the database-dependent suites (the
# packages project) again on the system server. The browser, server and CLI suites (the web and design projects) and
# the cluster behind HAProxy (the cluster project) run once, with the first.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# Each stage prints the seconds since the start: CI has a time budget, and this is where it goes.
stage() { echo "== $1 (at ${SECONDS} s)"; }

bash scripts/ensure-test-deps.sh

stage "Lint and typecheck"
npx biome ci .
npx turbo run typecheck --output-logs=errors-only
npx tsc --noEmit -p bench
npx tsc --noEmit -p scripts
npx tsc --noEmit -p deploy
(cd packages/db && npx drizzle-kit generate >/dev/null)
if [ -n "$(git status --porcelain packages/db/drizzle)" ]; then
  echo "The drizzle schema changed without a committed migration: run npm run db:generate and commit it." >&2
  exit 1
fi

stage "Test suite on the embedded PostgreSQL"
env -u DATABASE_URL npx vitest run

stage "Database suites on the system PostgreSQL server"
DATABASE_URL="${SHELF_TEST_SYSTEM_DATABASE_URL:-postgres://127.0.0.1:5432/test}" npx vitest run --project packages

stage "Benchmark smoke run (1 s per scenario, the hot paths also through HAProxy, a gallery of 5,000 screens; the figures are not meaningful, the run must not fail: answers equal, no sequential scan)"
SHELF_BENCH_TARGET=cluster SHELF_BENCH_SECONDS=1 SHELF_BENCH_WARMUP_SECONDS=0 SHELF_BENCH_DOWNLOAD_MB=64 SHELF_BENCH_OUTPUT="${TMPDIR:-/tmp}/shelf-bench-smoke.md" \
  SHELF_BENCH_GALLERY_SCREENS=5000 SHELF_BENCH_GALLERY_OUTPUT="${TMPDIR:-/tmp}/shelf-bench-gallery-smoke.md" \
  DATABASE_URL="${SHELF_TEST_SYSTEM_DATABASE_URL:-postgres://127.0.0.1:5432/test}" npm run bench
stage "All checks and tests passed"
