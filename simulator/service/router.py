"""HAProxy's configuration for ``officeworld up --workers N`` (``simulator/service/shards.py`` runs it).

Every episode id a worker makes carries its tag (``ep_w1_...``, ``simulator.store.episodes``). HAProxy sends a
path naming an episode (``/episodes/{id}/...``: REST, MCP, GUI; ``/v1/episodes/{id}/...``: the control API;
``/v1/view?episode={id}``) to the backend of the worker its id names, which holds that one worker only: no
other worker ever answers for it. Anything else (creating an episode, the listing, tasks, health, docs) goes
to any healthy worker (``leastconn``). HAProxy checks each worker's own ``/health`` every 2 s and sends
nothing to one that failed three checks in a row; a request for an episode whose worker is down (or goes away while
answering) gets HAProxy's own answer in the API's error shape, ``{"error": {"type": "unavailable", ...}}``,
with status 503 (502 or 504 when the worker went away or went silent mid-answer).

``write_replica_config`` is compose's router (``officeworld router``, ``simulator.service.replicas``): the same
routes, the replicas found by DNS instead of given ports.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
from pathlib import Path

from simulator.gateway.peers import LOCAL_HEADER
from simulator.service.serve import KEEP_ALIVE_S

HAPROXY_FIX = ("haproxy is not installed; `up --workers N` needs it as its router: apt-get install haproxy "
               "(./dev.sh setup installs it when run as root), or run one worker (--workers 1)")
_REASONS = {502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


def haproxy_binary() -> str | None:
    """HAProxy's path (Debian puts it in /usr/sbin, often not on a user's PATH), or None."""
    found = shutil.which("haproxy")
    if found:
        return found
    return next((str(p) for p in (Path("/usr/sbin/haproxy"), Path("/usr/local/sbin/haproxy")) if p.exists()), None)


def _error(message: str) -> dict:
    return {"error": {"type": "unavailable", "message": message, "field": "episode_id"}}


def error_file(status: int, message: str) -> str:
    """A raw HTTP response HAProxy sends as it is (``errorfile``): the API's error shape."""
    body = json.dumps(_error(message))
    return (f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\ncache-control: no-cache\r\n"
            f"content-length: {len(body.encode())}\r\nconnection: close\r\n\r\n{body}")


def _worker_errors(tag: str) -> dict[int, str]:
    return {
        503: f"worker {tag}, which holds this episode, is down (it is being restarted: retry shortly)",
        502: f"worker {tag}, which holds this episode, went away while answering: the call may or may not "
             "have been done (its step is in the trajectory if it was); retry once it is back",
        504: f"worker {tag}, which holds this episode, did not answer in time"}


_ANY = {503: "no worker is up (they are being restarted: retry shortly)",
        502: "the worker went away while answering: retry", 504: "the worker did not answer in time"}


def write_config(folder: Path, host: str, port: int, workers: dict[str, int]) -> Path:
    """Write ``haproxy.cfg`` and its error files into ``folder``: listen on ``host:port``, one backend per
    worker (tag -> loopback port) and one over them all."""
    for tag, messages in {**{t: _worker_errors(t) for t in workers}, "any": _ANY}.items():
        for status, message in messages.items():
            (folder / f"{tag}-{status}.http").write_text(error_file(status, message), encoding="utf-8")
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [
        "global", f"    maxconn {_max_connections()}", f"    nbthread {threads()}", "",
        "defaults", "    mode http", "    timeout connect 5s",
        # MCP's event streams and a slow grading stay open long; a kept idle connection lasts as the server's.
        "    timeout client 1h", "    timeout server 1h", "    timeout tunnel 1h",
        f"    timeout http-keep-alive {KEEP_ALIVE_S}s", "    retries 2", "",
        "frontend router", f"    bind {bind}"]
    for tag in workers:
        lines += [f"    acl {tag} path_beg /episodes/ep_{tag}_ /v1/episodes/ep_{tag}_",
                  f"    acl {tag} url_param(episode) -m beg ep_{tag}_",
                  f"    use_backend {tag} if {tag}"]
    lines += ["    default_backend any", ""]
    check = ["    option httpchk", f"    http-check send meth GET uri /health hdr {LOCAL_HEADER} 1",
             "    http-check expect status 200",
             # A worker busy answering hundreds of clients answers its check late, not never: only one that fails
             # three in a row (10 s each) is taken out. A dead one is refused at once: its requests answer 503
             # whatever the checks say.
             "    timeout check 10s", "    default-server inter 2s fall 3 rise 1"]
    for tag, worker_port in workers.items():
        lines += [f"backend {tag}", *check, *_errorfiles(folder, tag),
                  f"    server {tag} 127.0.0.1:{worker_port} check", ""]
    lines += ["backend any", "    balance leastconn", "    option redispatch", *check, *_errorfiles(folder, "any"),
              *(f"    server {tag} 127.0.0.1:{p} check" for tag, p in workers.items()), ""]
    path = folder / "haproxy.cfg"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def write_replica_config(folder: Path, port: int, slots: int, service: str, servers: int, host: str = "",
                         nameserver: str = "") -> Path:
    """``haproxy.cfg`` of compose's router (``simulator.service.replicas``): listen on ``host:port`` (every
    address by default); the replicas are found by DNS as ``service`` (host:port; ``nameserver``, else the
    container's resolver), up to ``servers`` of them, in each of the ``slots`` tags' backends (where only the
    replica holding the tag passes the check) and in one over them all."""
    tags = [f"w{k}" for k in range(slots)]
    for tag, messages in {**{t: _worker_errors(t) for t in tags}, "any": _ANY}.items():
        for status, message in messages.items():
            (folder / f"{tag}-{status}.http").write_text(error_file(status, message), encoding="utf-8")
    lines = [
        "global", f"    maxconn {_max_connections()}", "",
        # The container's resolver (compose's DNS), asked every 2 s: a replica restarted at another address, or
        # one more, is a server again within seconds; an address DNS stopped giving is dropped as soon.
        "resolvers compose", f"    nameserver dns {nameserver}" if nameserver else "    parse-resolv-conf",
        "    resolve_retries 3", "    timeout resolve 1s", "    timeout retry 1s",
        *(f"    hold {what} 2s" for what in ("valid", "other", "refused", "nx", "timeout", "obsolete")), "",
        "defaults", "    mode http", "    timeout connect 5s", "    timeout client 1h", "    timeout server 1h",
        "    timeout tunnel 1h", f"    timeout http-keep-alive {KEEP_ALIVE_S}s", "    retries 2", "",
        "frontend router", f"    bind {host}:{port}"]
    for tag in tags:   # a peer's question for one tag's own part carries the tag in LOCAL_HEADER
        lines += [f"    acl {tag} path_beg /episodes/ep_{tag}_ /v1/episodes/ep_{tag}_",
                  f"    acl {tag} url_param(episode) -m beg ep_{tag}_",
                  f"    acl {tag} req.hdr({LOCAL_HEADER}) -m str {tag}",
                  f"    use_backend {tag} if {tag}"]
    lines += ["    default_backend any", ""]
    found = f"server-template replica {servers} {service} check resolvers compose init-addr none resolve-prefer ipv4"
    for tag in tags:   # a replica asked for another tag's episode (checks not caught up yet) refused it: 503
        lines += [f"backend {tag}", *_checks(tag), *_errorfiles(folder, tag),
                  f"    http-response return status 503 content-type application/json file {folder / f'{tag}-503.json'}"
                  " if { status 421 }", f"    {found}", ""]
        unsure = (f"worker {tag}, which holds this episode, cannot be told apart from the other replicas yet (one "
                  "just started or moved; the router checks every 2 s): retry shortly")
        (folder / f"{tag}-503.json").write_text(json.dumps(_error(unsure)), encoding="utf-8")
    lines += ["backend any", "    balance leastconn", "    option redispatch", *_checks("1"),
              *_errorfiles(folder, "any"), f"    {found}", ""]
    path = folder / "haproxy.cfg"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _checks(asked: str) -> list[str]:
    return ["    option httpchk", f"    http-check send meth GET uri /health hdr {LOCAL_HEADER} {asked}",
            "    http-check expect status 200", "    timeout check 10s", "    default-server inter 2s fall 3 rise 1"]


def _errorfiles(folder: Path, tag: str) -> list[str]:
    return [f"    errorfile {status} {folder / f'{tag}-{status}.http'}" for status in _REASONS]


def threads(cores: int | None = None) -> int:
    """HAProxy's threads: one per four of the cores this process may use (at least one; HAProxy's own default is
    one per core). The router spends about a sixth of a worker's CPU per call, and each thread sleeps and wakes on
    its own: with one thread per core of a 2-core machine, most of HAProxy's CPU was the kernel switching to a
    thread woken for one or two requests, and a call cost it 0.055 ms over REST and 0.075 over MCP, against 0.040
    and 0.057 with one thread (``bench --load --workers 2``, 100 episodes). One thread forwards ~25,000 calls/s
    there; 8 workers on 16 cores answered 22,000 REST calls/s, so such a machine gets four."""
    cores = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, cores // 4)


def _max_connections() -> int:
    """As many connections as the open-file limit allows HAProxy (two descriptors each), at most 20,000."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 20000 if hard == resource.RLIM_INFINITY else max(100, min(20000, (hard - 200) // 2))
