#!/usr/bin/env bash
# Set-up and the two jobs of the README:
#   ./dev.sh up      install everything, then serve the acme world on http://127.0.0.1:8000
#   ./dev.sh test    install everything, then run the test suite
# Other commands: ./dev.sh setup | bench | <any command to run inside the virtual environment>
set -euo pipefail
cd "$(dirname "$0")"
VENV=${OFFICEWORLD_VENV:-.venv}

setup() {
  if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -e ".[test]"
  # The shell-agent jail needs bubblewrap; compose.yaml is checked with docker-compose 1.x (no engine needed);
  # browser agents and the GUI tests drive Debian's Chromium through Playwright (no browser download).
  local missing=()
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if [ ! -x tools/inspector/node_modules/.bin/mcp-inspector ]; then
    (cd tools/inspector && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

case "${1:-up}" in
  setup) setup ;;
  up) setup; shift || true; exec "$VENV/bin/officeworld" up "$@" ;;
  test) setup; shift || true; exec "$VENV/bin/python" -m pytest -q "$@" ;;
  bench) setup; shift || true; exec "$VENV/bin/officeworld" bench "$@" ;;
  *) setup; exec "$VENV/bin/$1" "${@:2}" ;;
esac
