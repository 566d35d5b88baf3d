#!/usr/bin/env bash
# Set-up and the two jobs of the README:
#   ./dev.sh up      install what serving needs (first time only), then serve the acme world on http://127.0.0.1:8000
#   ./dev.sh test    install everything (first time only), then run the test suite in parallel, with progress
#   ./dev.sh check   prove every shipped task (officeworld tasks check), reports in out/tasks-check
# Other commands: ./dev.sh setup [--trainers] (reinstall now; with --trainers the trainer libraries too) | bench |
# freeze (constraints.txt from .venv) | <any command of the virtual environment>, e.g. ./dev.sh ow --help
#
# What it installs, a step at a time, each said with what and why before it starts and how long it took after:
#   serving  the Python packages of pyproject.toml's dependencies into .venv, at the versions of constraints.txt
#            (again only when either changes), and the project's bytecode: all that `up`, `ow` and `check` need
#   system   bubblewrap (the shell-agent jail), chromium (the GUI tools), haproxy (the router of `up --workers N`)
#            and docker-compose (checks compose.yaml), system-wide with apt-get when run as root and they are missing
#   trainers (test, setup --trainers) PyTorch's CPU build and the extras test, trl, gym, ray, plot and skyrl into .venv,
#            the trainers' own libraries into .venv-side, OpenEnv 0.10's CLI into .venv-openenv, NeMo Gym into
#            .venv-nemo (Python 3.12: pyenv's or python3.12 on PATH), and the MCP Inspector into tools/inspector/node_modules
# README.md ("Set-up") says how long each takes and how much disk it uses.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${OFFICEWORLD_VENV:-.venv}
SERVING_STAMP="$VENV/.officeworld-serving.sha256"
STAMP="$VENV/.officeworld-pyproject.sha256"   # the trainer extras (and so serving too) installed
SIDE=${OFFICEWORLD_SIDE_VENV:-.venv-side}
SIDE_STAMP="$SIDE/.officeworld-side.sha256"
OPENENV_VENV=${OFFICEWORLD_OPENENV_VENV:-.venv-openenv}
NEMO_VENV=${OFFICEWORLD_NEMO_VENV:-.venv-nemo}
NPM_STAMP=tools/inspector/node_modules/.officeworld-lock.sha256
PIP=(--quiet --disable-pip-version-check)

say() { echo "dev.sh: $*" >&2; }
digest() { sha256sum "$1" | cut -d' ' -f1; }
deps_digest() { cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1; }
# step WHAT WHY: announce a step; done_step: how long it took.
step() { STEP_START=$SECONDS; say "$1 ($2) ..."; }
done_step() { say "  done in $((SECONDS - STEP_START)) s"; }

venv() {
  if [ ! -x "$VENV/bin/python" ]; then say "creating the virtual environment $VENV"; python3 -m venv "$VENV"; fi
}

serving() {
  local force=${1:-}
  venv
  if [ -n "$force" ] || { [ "$(cat "$SERVING_STAMP" 2>/dev/null)" != "$(deps_digest)" ] \
                          && [ "$(cat "$STAMP" 2>/dev/null)" != "$(deps_digest)" ]; }; then
    step "serving: installing officeworld and the packages it serves with into $VENV" \
      "pyproject.toml or constraints.txt is new or changed; about two minutes and 0.4 GB the first time"
    # compat: a plain path in a .pth file; the default editable finder costs every Python start (and ow) ~15 ms.
    "$VENV/bin/pip" install "${PIP[@]}" -c constraints.txt -e . --config-settings editable_mode=compat
    bytecode
    deps_digest > "$SERVING_STAMP"
    done_step
  fi
}

# The project's bytecode, as an installed package has it: a start reads it even where PYTHONDONTWRITEBYTECODE
# is set (elsewhere Python writes it on first use). A module changed since is compiled from source as before.
bytecode() {
  "$VENV/bin/python" -m compileall -qq -j 0 apps scenarios simulator sandbox tasks trainers worlds || true   # errors show on import
}

system() {
  local missing=()
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      step "system: installing system-wide with apt-get: ${missing[*]}" \
        "the shell-agent jail, the GUI tools, the router of up --workers and the compose checks; missing here"
      apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
      done_step
    else
      say "not installed: ${missing[*]} (their tests are skipped; as root: apt-get install ${missing[*]})"
    fi
  fi
}

trainers() {
  local force=${1:-}
  venv
  if [ -n "$force" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$(deps_digest)" ]; then
    # PyTorch's CPU build first, or trl would pull a CUDA build of several GB.
    if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
      step "trainers: installing PyTorch (CPU build) into $VENV" "trl needs it; the largest download, about 0.9 GB"
      "$VENV/bin/pip" install "${PIP[@]}" -c constraints.txt "torch==2.13.0"
      done_step
    fi
    step "trainers: installing the extras test, trl, gym, ray, plot and skyrl into $VENV" \
      "the test suite and the trainer adapters; pyproject.toml or constraints.txt is new or changed"
    "$VENV/bin/pip" install "${PIP[@]}" -c constraints.txt -e ".[test,trl,gym,ray,plot,skyrl]" \
      --config-settings editable_mode=compat
    bytecode
    deps_digest > "$STAMP"
    deps_digest > "$SERVING_STAMP"
    done_step
  fi
  # The trainers' own libraries that pin another MCP SDK (verifiers, OpenEnv's client) live in a venv of their
  # own and reach the world over HTTP, as users run them.
  if [ -n "$force" ] || [ "$(cat "$SIDE_STAMP" 2>/dev/null)" != "$(digest trainers/side-requirements.txt)" ]; then
    step "trainers: installing the trainers' own libraries into $SIDE" \
      "verifiers and OpenEnv's client pin another MCP SDK; trainers/side-requirements.txt is new or changed"
    [ -x "$SIDE/bin/python" ] || python3 -m venv "$SIDE"
    "$SIDE/bin/pip" install "${PIP[@]}" -r trainers/side-requirements.txt
    digest trainers/side-requirements.txt > "$SIDE_STAMP"
    done_step
  fi
  # OpenEnv 0.10 (its validator and packaging CLI) and NeMo Gym pin MCP SDK 1.x: each in a venv of its own.
  apart "$OPENENV_VENV" python3 trainers/openenv-requirements.txt "OpenEnv 0.10's CLI (openenv validate / build / push)"
  local py312
  if py312=$(python312); then
    apart "$NEMO_VENV" "$py312" trainers/nemo-requirements.txt "NeMo Gym, for its resources-server adapter's tests"
  else
    say "not installed: NeMo Gym needs Python 3.12 (none found: set PYTHON312; its tests are skipped)"
  fi
  if [ -n "$force" ] || [ "$(cat "$NPM_STAMP" 2>/dev/null)" != "$(digest tools/inspector/package-lock.json)" ]; then
    step "trainers: installing the MCP Inspector into tools/inspector/node_modules (npm ci)" \
      "its tests and the README's Inspector example; its package-lock.json is new or changed"
    (cd tools/inspector && npm ci --no-audit --no-fund --loglevel=error)
    digest tools/inspector/package-lock.json > "$NPM_STAMP"
    done_step
  fi
}

# apart VENV PYTHON REQUIREMENTS WHAT: a trainer library that pins what ours cannot share, in VENV (made with PYTHON),
# from REQUIREMENTS, again only when that file changes (or with setup --trainers).
apart() {
  local venv=$1 python=$2 requirements=$3 stamp="$1/.officeworld-requirements.sha256"
  if [ -n "${force:-}" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$(digest "$requirements")" ]; then
    step "trainers: installing $4 into $venv" "it pins MCP SDK 1.x; $requirements is new or changed"
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    "$venv/bin/pip" install "${PIP[@]}" -r "$requirements"
    digest "$requirements" > "$stamp"
    done_step
  fi
}

# The first Python 3.12 that really runs (pyenv's shim for python3.12 is on PATH but fails where 3.12 is not active).
python312() {
  local candidate
  for candidate in ${PYTHON312:-} $(command -v python3.12 || true) \
      $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python 2>/dev/null); do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

# Everything the test suite needs (the trainers' install covers serving's packages, and says so in its stamp).
everything() { trainers "${1:-}"; system; }

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
  setup) if [ "${2:-}" = --trainers ]; then everything force; else serving force; system; fi ;;
  up) serving; shift || true; exec "$VENV/bin/officeworld" up "$@" ;;
  # -n auto: one worker per CPU; loadfile keeps a file's tests (and its module fixtures) on one worker.
  test) everything; shift || true; exec "$VENV/bin/python" -m pytest -n auto --dist loadfile --durations=10 "$@" ;;
  bench) serving; shift || true; exec "$VENV/bin/officeworld" bench "$@" ;;
  freeze) everything; freeze ;;
  check) serving; system; shift || true; exec "$VENV/bin/officeworld" tasks check --report out/tasks-check "$@" ;;
  # A command the serving packages do not have (mypy, pytest): everything.
  *) serving; [ -x "$VENV/bin/$1" ] || everything; exec "$VENV/bin/$1" "${@:2}" ;;
esac
