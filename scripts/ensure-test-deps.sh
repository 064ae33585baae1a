#!/usr/bin/env bash
# Installs and starts what the test suite needs beyond npm packages: Debian's Chromium and a Korean font for page
# tests, aria2 and curl for download tests, unzip for agent skills' .zip files, 7-Zip for the demo's .dmg files,
# pdftotext for invoice PDFs, HAProxy for the cluster (npm run cluster and its tests), D-Bus and GNOME Keyring for the
# CLI's keychain test, the system PostgreSQL server (second database run) and Redis (shared rate limits). Safe to run
# again.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v aria2c >/dev/null 2>&1 || missing+=(aria2)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# `shelf install` of a .zip release (an agent skill) and the demo seed's test unpack with unzip.
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
# The demo seed's test opens the demo apps' .dmg files (UDIF, a FAT volume inside) with 7-Zip.
command -v 7z >/dev/null 2>&1 || missing+=(p7zip-full)
# The cluster (npm run cluster) and its tests put HAProxy in front of the instances.
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
# Invoice PDFs are checked by their extracted text (pdftotext).
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
# Korean glyphs, so the Korean pages' screenshots (test artifacts) show text rather than empty boxes.
[ -n "$(fc-list :lang=ko 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
# An OS keychain for `shelf login` (packages/cli/test/keychain.test.ts): a D-Bus session bus with GNOME Keyring's
# Secret Service, unlocked headless, and secret-tool to look the key up.
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
command -v dbus-send >/dev/null 2>&1 || missing+=(dbus-bin)
command -v gnome-keyring-daemon >/dev/null 2>&1 || missing+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || missing+=(libsecret-tools)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]} from Debian (page tests, download tests, the cluster, the CLI's keychain test)..."
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

# The MCP conformance suite runs on Node 22, kept in its own folder (.tools/conformance) so that it never takes over
# the project's own Node: the tests call that folder's node binary directly.
conformance=".tools/conformance"
if [ ! -x "$conformance/node_modules/node/bin/node" ] || [ ! -f "$conformance/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
  echo "Installing the MCP conformance suite and Node 22 into $conformance..."
  mkdir -p "$conformance"
  [ -f "$conformance/package.json" ] || echo '{"private":true}' > "$conformance/package.json"
  npm install --prefix "$conformance" --no-audit --no-fund --save-exact --loglevel=error \
    node@22.23.3 @modelcontextprotocol/conformance@0.2.0-alpha.12 >/dev/null
fi

# The Python MCP SDK (its OAuth client is tested against the production build), in a venv of its own (.tools/pymcp)
# from the machine's local wheels or package index: never required, so a machine without either skips that test.
pymcp=".tools/pymcp"
if [ ! -x "$pymcp/bin/python" ] || ! "$pymcp/bin/python" -c "import mcp" >/dev/null 2>&1; then
  echo "Installing the Python MCP SDK into $pymcp..."
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv "$pymcp" >/dev/null 2>&1; then
    echo "Skipping the Python MCP SDK: no python3 with venv here (its OAuth test will be skipped)."
  elif "$pymcp/bin/pip" install -q --no-index --find-links /opt/wheels mcp >/dev/null 2>&1 \
    || "$pymcp/bin/pip" install -q --retries 0 --timeout 15 mcp >/dev/null 2>&1; then
    echo "Python MCP SDK $("$pymcp/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') installed."
  else
    echo "Skipping the Python MCP SDK: pip could not install mcp from /opt/wheels or the configured index (its OAuth test will be skipped)."
    rm -rf "$pymcp"
  fi
fi
