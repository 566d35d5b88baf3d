#!/usr/bin/env bash
# Set-up and the two jobs of the README:
#   ./dev.sh up      install (first time only), then serve the acme world on http://127.0.0.1:8000
#   ./dev.sh test    install (first time only), then run the test suite in parallel, with progress
#   ./dev.sh check   prove every shipped task (officeworld tasks check), reports in out/tasks-check
# Other commands: ./dev.sh setup (reinstall now) | bench | freeze (constraints.txt from .venv) | <any command of the virtual environment>, e.g. ./dev.sh ow --help
#
# What it installs: the Python packages of pyproject.toml into .venv, at the versions of constraints.txt (again
# only when either changes), the MCP Inspector into tools/inspector/node_modules (npm, again only when its lock file
# changes), and, system-wide with apt-get when run as root and they are missing, bubblewrap (the
# shell-agent jail) and docker-compose (checks compose.yaml); it says so before it does.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${OFFICEWORLD_VENV:-.venv}
STAMP="$VENV/.officeworld-pyproject.sha256"
SIDE=${OFFICEWORLD_SIDE_VENV:-.venv-side}
SIDE_STAMP="$SIDE/.officeworld-side.sha256"
NPM_STAMP=tools/inspector/node_modules/.officeworld-lock.sha256

say() { echo "dev.sh: $*" >&2; }
digest() { sha256sum "$1" | cut -d' ' -f1; }
deps_digest() { cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1; }

setup() {
  local force=${1:-}
  if [ ! -x "$VENV/bin/python" ]; then say "creating the virtual environment $VENV"; python3 -m venv "$VENV"; fi
  if [ -n "$force" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$(deps_digest)" ]; then
    say "installing officeworld and its Python packages into $VENV (pyproject.toml or constraints.txt is new or changed)"
    # compat: a plain path in a .pth file; the default editable finder costs every Python start (and ow) ~15 ms.
    # PyTorch's CPU build first (a file on these machines' disk), or trl would pull a CUDA build of several GB.
    "$VENV/bin/python" -c "import torch" 2>/dev/null || "$VENV/bin/pip" install --quiet --disable-pip-version-check -c constraints.txt "torch==2.13.0"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -c constraints.txt -e ".[test,trl,gym,ray,plot]" \
      --config-settings editable_mode=compat
    # The project's bytecode, as an installed package has it: a start reads it even where PYTHONDONTWRITEBYTECODE
    # is set (elsewhere Python writes it on first use). A module changed since is compiled from source as before.
    "$VENV/bin/python" -m compileall -qq -j 0 apps scenarios simulator sandbox tasks trainers worlds || true   # errors show on import
    deps_digest > "$STAMP"
  fi
  # The trainers' own libraries that pin another MCP SDK (verifiers, OpenEnv's client) live in a venv of their
  # own and reach the world over HTTP, as users run them.
  if [ -n "$force" ] || [ "$(cat "$SIDE_STAMP" 2>/dev/null)" != "$(digest trainers/side-requirements.txt)" ]; then
    say "installing the trainers' own libraries into $SIDE (trainers/side-requirements.txt is new or changed)"
    [ -x "$SIDE/bin/python" ] || python3 -m venv "$SIDE"
    "$SIDE/bin/pip" install --quiet --disable-pip-version-check -r trainers/side-requirements.txt
    digest trainers/side-requirements.txt > "$SIDE_STAMP"
  fi
  local missing=()
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      say "installing system-wide with apt-get: ${missing[*]}"
      apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      say "not installed: ${missing[*]} (their tests are skipped; as root: apt-get install ${missing[*]})"
    fi
  fi
  if [ -n "$force" ] || [ "$(cat "$NPM_STAMP" 2>/dev/null)" != "$(digest tools/inspector/package-lock.json)" ]; then
    say "installing the MCP Inspector into tools/inspector/node_modules (npm ci)"
    (cd tools/inspector && npm ci --no-audit --no-fund --loglevel=error)
    digest tools/inspector/package-lock.json > "$NPM_STAMP"
  fi
}

# constraints.txt from the venv as it is now (its header kept; the project, editable and local installs left out).
freeze() {
  { grep '^#' constraints.txt
    "$VENV/bin/pip" freeze --disable-pip-version-check --exclude-editable | grep -v -e '^officeworld==' -e '^#' -e '^-e ' -e ' @ ' \
      | sed 's/+cpu$//'
  } > constraints.txt.new
  mv constraints.txt.new constraints.txt
  say "wrote constraints.txt ($(grep -vc '^#' constraints.txt) packages)"
}

case "${1:-up}" in
  setup) setup force ;;
  up) setup; shift || true; exec "$VENV/bin/officeworld" up "$@" ;;
  # -n auto: one worker per CPU; loadfile keeps a file's tests (and its module fixtures) on one worker.
  test) setup; shift || true; exec "$VENV/bin/python" -m pytest -n auto --dist loadfile --durations=10 "$@" ;;
  bench) setup; shift || true; exec "$VENV/bin/officeworld" bench "$@" ;;
  freeze) setup; freeze ;;
  check) setup; shift || true; exec "$VENV/bin/officeworld" tasks check --report out/tasks-check "$@" ;;
  *) setup; exec "$VENV/bin/$1" "${@:2}" ;;
esac
