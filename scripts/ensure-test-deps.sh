#!/usr/bin/env bash
# Installs and starts what the test suite needs beyond npm packages: Debian's Chromium for page tests, aria2 and curl
# for download tests, the system PostgreSQL server (second database run) and Redis (shared rate limits). Safe to run
# again.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v aria2c >/dev/null 2>&1 || missing+=(aria2)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]} from Debian (page tests, download tests)..."
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "Starting the system PostgreSQL server..."
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Starting Redis..."
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
