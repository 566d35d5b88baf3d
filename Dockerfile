# syntax=docker/dockerfile:1
# officeworld's one image: every service of compose.yaml (app services, gateway, agent shell) and compose.scale.yaml's
# router run it.
# Build arguments: BASE, an image with Python 3.11 (python3 and its venv module); DEPS, where pip finds the
# dependencies: "index" (the package registry) or "wheelhouse" (wheels built beforehand into ./wheelhouse,
# for a build without network access; .ci/compose builds on a Debian image of its own that way).
ARG BASE=python:3.11-slim
ARG DEPS=index

FROM ${BASE} AS venv
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python3 -m venv /opt/venv

FROM venv AS deps-index

FROM venv AS deps-wheelhouse
ENV PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels
COPY wheelhouse /wheels
RUN /opt/venv/bin/pip install --no-cache-dir /wheels/*.whl

# Build stage: the project and (from the index) its dependencies into the virtual environment, at the
# versions of constraints.txt: those the test suite passed with (dev.sh and CI install with it too).
# hadolint ignore=DL3006
FROM deps-${DEPS} AS build
WORKDIR /src
COPY pyproject.toml README.md constraints.txt ./
COPY apps ./apps
COPY scenarios ./scenarios
COPY simulator ./simulator
COPY sandbox ./sandbox
COPY tasks ./tasks
COPY trainers ./trainers
COPY worlds ./worlds
RUN /opt/venv/bin/pip install --no-cache-dir -c constraints.txt .

# The agent shell's image (compose's agent-shell, `--target agent`): the interpreter and the four files `ow` runs
# from (it imports only the standard library). Nothing of the tasks, the worlds, the apps or their environment:
# an agent that could read the task definitions or the worlds' grader-only facts could read the answers.
FROM ${BASE} AS agent
ENV PYTHONPATH=/opt/ow PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY --chown=root:root simulator/__init__.py /opt/ow/simulator/
COPY --chown=root:root simulator/agent/__init__.py simulator/agent/ow.py simulator/agent/output.py /opt/ow/simulator/agent/
RUN printf '#!/usr/bin/env python3\nimport sys\nfrom simulator.agent.ow import main\nsys.exit(main())\n' >/usr/local/bin/ow \
    && chmod 755 /usr/local/bin/ow \
    && useradd --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin agent
USER 10001:10001
CMD ["python3", "-c", "import signal; signal.pause()"]

# The final stage's system: the base and HAProxy, which compose's router runs (compose.scale.yaml): the base's when
# it has one (.ci/compose's base is made with it), else Debian's, with apt (unpinned: the version is the base's
# Debian release's, whichever that is), its package lists removed.
# hadolint ignore=DL3006
FROM ${BASE} AS system
# hadolint ignore=DL3008
RUN [ -x /usr/sbin/haproxy ] || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        haproxy && rm -rf /var/lib/apt/lists/*; }

# Final stage: the interpreter, HAProxy, the environment and the source; no compilers, no package caches.
FROM system AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    OFFICEWORLD_CACHE_DIR=/cache
RUN useradd --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin officeworld \
    && mkdir -p /cache /trajectories \
    && chown officeworld:officeworld /cache /trajectories
COPY --from=build /opt/venv /opt/venv
# The source sits in /app ahead of site-packages (PYTHONPATH), so compose can mount ./worlds over it.
WORKDIR /app
COPY --chown=root:root apps ./apps
COPY --chown=root:root scenarios ./scenarios
COPY --chown=root:root simulator ./simulator
COPY --chown=root:root sandbox ./sandbox
COPY --chown=root:root tasks ./tasks
COPY --chown=root:root trainers ./trainers
COPY --chown=root:root worlds ./worlds
# The bytecode of the source in /app, compiled once here: PYTHONDONTWRITEBYTECODE (and a read-only /app) would
# otherwise have every container start compile the project's ~240 modules again (~0.3 s CPU of a server's start).
# A source mounted over it (compose's ./worlds) is compiled from the source as before.
RUN python -m compileall -q apps scenarios simulator sandbox tasks trainers worlds
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=5s --timeout=3s --retries=30 --start-period=10s \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('OFFICEWORLD_PORT', '8000') + '/health', timeout=2)"]
CMD ["python", "-m", "simulator.cli", "up", "--host", "0.0.0.0", "--port", "8000", "--no-episode"]
