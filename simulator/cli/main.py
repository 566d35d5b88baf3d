"""``officeworld``: serve worlds (HTTP or stdio MCP) and measure them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import typer
import uvicorn

from apps.kit.settings import settings
from simulator.cli import ahead, gui, tasks, worlds
from simulator.runner import cli as run_cli
from simulator.runner import learnability
from simulator.store.episodes import EpisodeStore
from simulator.trajectories import cli as trajectories_cli

cli = typer.Typer(help="officeworld: a company's apps as a sandbox for agents.", no_args_is_help=True,
                  add_completion=False)
cli.add_typer(worlds.cli, name="worlds")
cli.add_typer(tasks.cli, name="tasks")
cli.add_typer(trajectories_cli.cli, name="trajectories")
cli.command("replay")(trajectories_cli.replay_command)
cli.command("grade")(trajectories_cli.grade_command)
cli.command("run")(run_cli.run_command)
cli.command("learnability")(learnability.learnability_command)
cli.add_typer(gui.cli, name="gui")


@cli.command()
def view(target: Path = typer.Argument(..., help="A trajectory file or a folder of them"),
         out: Path = typer.Option(None, "--out", help="Write the page here (default: stdout)"),
         diffs: bool = typer.Option(True, help="Replay the writes to show each one's state diff against the start")) -> None:
    """A static HTML page (works offline) of each episode's timeline, state diffs and reward; a folder's rollouts
    of one task side by side."""
    from simulator.trajectories.files import TrajectoryFileError
    from simulator.viewer.render import view_target

    if not target.exists():
        typer.echo(f"error: {target}: no such file or folder", err=True)
        raise typer.Exit(2)
    if target.is_dir() and not any(target.rglob("*.jsonl")):
        typer.echo(f"error: {target}: no *.jsonl trajectory files", err=True)
        raise typer.Exit(2)
    try:
        html = view_target(target, diffs)
    except (OSError, TrajectoryFileError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if out is None:
        typer.echo(html, nl=False)
        return
    out.write_text(html, encoding="utf-8")
    typer.echo(f"-> {out}", err=True)


@cli.command("openenv", add_help_option=False,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def openenv(ctx: typer.Context) -> None:
    """Serve an OpenEnv environment (reset / step / state over /ws, /schema, /health): one world episode a session."""
    # The trainers are the layer above the simulator: imported only when this command runs (``--help`` included).
    from trainers.openenv import openenv_command

    command = typer.Typer(add_completion=False)
    command.command()(openenv_command)
    command(ctx.args, prog_name="officeworld openenv")


@cli.command()
def up(world: str = typer.Option("acme", envvar="OFFICEWORLD_WORLD", help="World to compile ahead of the first episode"),
       host: str = typer.Option("127.0.0.1", envvar="OFFICEWORLD_HOST", help="Address to listen on"),
       port: int = typer.Option(8000, envvar="OFFICEWORLD_PORT", help="Port to listen on"),
       episode: bool = typer.Option(True, envvar="OFFICEWORLD_FIRST_EPISODE",
                                    help="Create one episode at start and print its URLs"),
       backend: str = typer.Option("inprocess", help="inprocess (one process), processes (the services of "
                                   "compose.yaml as local processes) or docker (docker compose)"),
       resume: bool = typer.Option(False, "--resume", envvar="OFFICEWORLD_RESUME",
                                   help="Rebuild the unfinished episodes of the trajectory folder "
                                   "(OFFICEWORLD_TRAJECTORY_DIR) from their files, same ids, before serving"),
       workers: int = typer.Option(1, min=1, max=256, envvar="OFFICEWORLD_WORKERS",
                                   help="Gateway processes behind HAProxy (which must be installed), each episode "
                                   "in one of them; a worker that dies is restarted (1: one process, no router)")) -> None:
    """Serve the control API, per-episode REST and per-episode MCP (apps in-process, or as services)."""
    from simulator.service.replicas import become_replica
    from simulator.service.serve import PortInUse, claimed

    try:   # one replica of compose's scaled gateway (compose.scale.yaml): its tag first, waiting while all are held
        become_replica()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if workers > 1 and backend != "inprocess":
        raise typer.BadParameter("several workers run with the apps in-process only (--backend inprocess)",
                                 param_hint="--workers")
    try:   # the port first: a taken one is said at once, before any banner, episode or trajectory file
        with claimed(host, port) as claim:
            if workers > 1:
                from simulator.service.shards import run_shards

                raise typer.Exit(run_shards(workers, world, host, port, episode, resume, claim))
            if backend != "inprocess":
                from simulator.service.deploy import run_backend

                raise typer.Exit(run_backend(backend, world=world, port=port, first_episode=episode, claim=claim))
            _up_inprocess(world, host, port, episode, resume, claim)
    except PortInUse as taken:
        print(f"error: {taken}", file=sys.stderr)
        raise typer.Exit(1) from None


def _up_inprocess(world: str, host: str, port: int, episode: bool, resume: bool, claim) -> None:
    """``officeworld up`` with the apps in this process, on the port ``claim`` holds."""
    from simulator.gateway.auth import control_token
    from simulator.gateway.server import build_app, serve
    from simulator.store import memory
    from simulator.tasks.catalog import task_catalog

    store = EpisodeStore()
    if resume and store.trajectory_dir is None:
        raise typer.BadParameter("--resume rebuilds episodes from their trajectory files: set "
                                 "OFFICEWORLD_TRAJECTORY_DIR", param_hint="--resume")
    compiled = store.world(world)
    print(f"officeworld: world {world!r} ready ({len(compiled.info.people)} people; "
          f"{', '.join(sorted(compiled.images))} compiled)", file=sys.stderr)
    base = settings().public_url or f"http://{host}:{port}"   # the URLs printed are those clients are given
    catalog = task_catalog(store)
    memory.freeze_startup()   # the imports, the compiled world and the catalog: out of the collector's scans
    ahead.release_collector()   # held off since the start (simulator/cli/__init__.py)
    memory.fewer_full_collections()   # a full collection walks every live episode's objects
    if resume:
        from simulator.trajectories.resume import resume as resume_episodes

        done = resume_episodes(store, catalog)
        for item in done:
            print(item.describe(), file=sys.stderr)
        print(f"resumed {sum(r.status == 'resumed' for r in done)} episode(s) from {store.trajectory_dir}",
              file=sys.stderr)
    if episode and not (resume and len(store)):
        ep = store.create(world)
        api = f"{base}/episodes/{ep.id}/api"
        print(f"episode {ep.id} as {ep.actor}\n  MCP:  {base}/episodes/{ep.id}/mcp\n"
              f"  REST: POST {api}/<app>/<operation> with the arguments as a JSON object, e.g. {api}/mail/search;"
              f" GET {api}/tools lists the operations\n"
              f"  CLI:  export OW_URL={base} OW_EPISODE={ep.id}   (ow is in {Path(sys.executable).parent})",
              file=sys.stderr)
    token = control_token()   # one made now is printed as a line to export
    print(f"control API: {base}/v1/episodes   (docs: {base}/docs)", file=sys.stderr)
    app = build_app(store, catalog, token=token)
    claim.close()   # uvicorn binds the port anew at once (``simulator.service.serve.claimed``)
    serve(app, host, port)


@cli.command("router")
def router(service: str = typer.Option("gateway:8000", help="The replicas' DNS name and port"),
           slots: int = typer.Option(1, min=1, max=256, envvar="OFFICEWORLD_WORKER_SLOTS",
                                     help="Tags the replicas claim (w0..w<N-1>): as the gateway's"),
           servers: int = typer.Option(0, min=0, max=256, help="Most replicas found (0: twice the tags, at least 4)"),
           port: int = typer.Option(8000, envvar="OFFICEWORLD_PORT", help="Port to listen on")) -> None:
    """compose's router (compose.scale.yaml): HAProxy in front of the gateway's replicas, found by DNS, each
    episode's requests to the replica holding its tag (simulator/service/replicas.py)."""
    import os
    import tempfile

    from simulator.service.router import HAPROXY_FIX, haproxy_binary, write_replica_config

    haproxy = haproxy_binary()
    if haproxy is None:
        print(f"error: {HAPROXY_FIX}", file=sys.stderr)
        raise typer.Exit(2)
    config = write_replica_config(Path(tempfile.mkdtemp(prefix="officeworld-router-")), port, slots, service,
                                  servers or max(4, 2 * slots))
    print(f"officeworld: router on port {port} for {slots} gateway tag(s) of {service} ({config})", file=sys.stderr)
    os.execv(haproxy, [haproxy, "-db", "-f", str(config)])   # HAProxy in this process: compose's signals reach it


@cli.command("app-service")
def app_service(app: str = typer.Option(..., envvar="OFFICEWORLD_APP", help="The app to serve (a name in the registry)"),
                world: list[str] = typer.Option(["acme"], envvar="OFFICEWORLD_WORLD",
                                                help="World(s) to compile before reporting healthy"),
                host: str = typer.Option("127.0.0.1", envvar="OFFICEWORLD_HOST", help="Address to listen on"),
                port: int = typer.Option(8001, envvar="OFFICEWORLD_PORT", help="Port to listen on"),
                token: str = typer.Option("", envvar="OFFICEWORLD_ADMIN_TOKEN", show_default=False,
                                          help="The admin API token the gateway sends")) -> None:
    """Serve one app's per-episode state over its internal admin API (for the gateway only)."""
    from simulator.service import listener
    from simulator.service.app_service import build_app_service
    from simulator.service.serve import KEEP_ALIVE_S
    from simulator.store.registry import APPS

    if app not in APPS:
        raise typer.BadParameter(f"unknown app {app!r} (known: {', '.join(sorted(APPS))})", param_hint="--app")
    if not token.strip():
        raise typer.BadParameter("give the admin API a token (OFFICEWORLD_ADMIN_TOKEN); the gateway needs the same",
                                 param_hint="--token")
    listener.run(uvicorn.Config(build_app_service(APPS[app], world, token=token.strip()), host=host, port=port,
                                log_level="warning", timeout_keep_alive=KEEP_ALIVE_S))


@cli.command("episode-proxy")
def episode_proxy(episode: str = typer.Option(..., envvar="OW_EPISODE", help="The episode the agent acts in"),
                  upstream: str = typer.Option("http://127.0.0.1:8000", envvar="OFFICEWORLD_GATEWAY_URL",
                                               help="The gateway"),
                  host: str = typer.Option("127.0.0.1", envvar="OFFICEWORLD_HOST", help="Address to listen on"),
                  port: int = typer.Option(8000, envvar="OFFICEWORLD_PORT", help="Port to listen on")) -> None:
    """Forward one episode's REST and MCP to the gateway and refuse everything else (for agent shells)."""
    import signal

    from simulator.agent.shell import episode_proxy as proxy

    if not episode.strip():
        raise typer.BadParameter("give the episode the agent acts in (OW_EPISODE)", param_hint="--episode")
    stop = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # so that sigwait, not a default handler, takes them
    with proxy(upstream, episode.strip(), host, port):
        print(f"episode-proxy: {host}:{port} -> {upstream} for episode {episode}", file=sys.stderr)
        signal.sigwait(stop)


@cli.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def shell(episode: str = typer.Option(..., envvar="OW_EPISODE", help="The episode the command acts in"),
          gateway: str = typer.Option("http://127.0.0.1:8000", envvar="OFFICEWORLD_GATEWAY_URL", help="The gateway"),
          command: list[str] = typer.Argument(None, help="The command to run in the jail (after --)")) -> None:
    """Run a command in a jail that reaches only one episode (``ow`` works inside; nothing else does)."""
    from sandbox.jail import unavailable_reason
    from simulator.agent.shell import episode_jail

    if not episode.strip():
        raise typer.BadParameter("give the episode the command acts in (OW_EPISODE)", param_hint="--episode")
    if not command:
        raise typer.BadParameter("give the command to run after --, e.g. -- ow mail search Globex",
                                 param_hint="COMMAND")
    reason = unavailable_reason()
    if reason is not None:
        print(f"shell: the jail cannot run here: {reason}", file=sys.stderr)
        raise typer.Exit(3)
    with episode_jail(gateway, episode.strip()) as jail:
        code = jail.attach(command)
    raise typer.Exit(code)


@cli.command()
def mcp(world: str = typer.Option("acme", help="World to start the episode in"),
        actor: str = typer.Option(None, "--as", help="Email of the person to act as (default: the world's)")) -> None:
    """Serve one fresh episode over MCP on stdio (point a desktop MCP client at this command)."""
    from mcp.server.stdio import stdio_server

    from apps.kit.mcp import build_server
    from simulator.gateway.server import INSTRUCTIONS
    from simulator.store.registry import all_operations

    store = EpisodeStore()
    episode = store.create(world, actor)
    server = build_server(all_operations(store.apps), lambda ctx: episode, instructions=INSTRUCTIONS)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


@cli.command()
def bench(world: str = typer.Option("acme", help="World to measure"),
          repeat: int = typer.Option(200, help="Samples per figure"),
          ray: bool = typer.Option(False, "--ray", help="Also rollouts per second in one process and over 1 and 2 "
                                   "Ray actors (starts a local Ray; a few minutes)"),
          load: bool = typer.Option(False, "--load", help="Instead: N concurrent episodes over REST, then MCP, "
                                    "against a server in its own process: agents paced to a total rate, then "
                                    "in a tight loop (calls/s, p50/p99, errors, dropped, CPU per call, memory)"),
          episodes: int = typer.Option(500, min=1, help="With --load: concurrent episodes"),
          seconds: float = typer.Option(10.0, min=0.5, max=600, help="With --load: seconds of each run "
                                        "(paced and tight loop, over REST and over MCP)"),
          mix: str = typer.Option("read", help="With --load: 'read' (mostly reads over warmed episodes) or 'write' "
                                  "(a training run: the episodes start at once, each a session that searches, "
                                  "reads, replies, updates an opportunity, creates and appends a document, sends)"),
          record: bool = typer.Option(False, "--record", help="With --load --mix write: the server keeps trajectory "
                                      "files (in a temporary folder), as a training run does"),
          rest_rate: float = typer.Option(None, min=0.1, help="With --load: calls/s the paced agents offer over REST "
                                          "(default 500 for the read mix, 300 for the write mix)"),
          mcp_rate: float = typer.Option(None, min=0.1, help="With --load: calls/s the paced agents offer over MCP "
                                         "(default 300)"),
          workers: int = typer.Option(0, min=0, max=256, help="With --load: also saturation over REST and MCP with "
                                      "one server and with `up --workers N` behind HAProxy, and their ratio (0: not); "
                                      "with --mix write: the mix against `up --workers N`"),
          clients: int = typer.Option(1, min=1, max=64, help="With --workers: client processes that share the "
                                      "episodes (one saturates near a core's worth of calls; give a many-core "
                                      "machine several)"),
          live: int = typer.Option(1000, min=0, help="Live episodes in one server (0: leave the figure out)"),
          corpus: bool = typer.Option(False, "--corpus", help="Instead: write the generated task corpus from an "
                                      "empty cache (its worlds generated and compiled), list it over the control "
                                      "API, and say what it holds")) -> None:
    """Measure episode create/fork, operation and MCP latencies and memory; print JSON."""
    if corpus:
        from simulator.bench.corpus import run as run_corpus

        print(json.dumps(run_corpus(), indent=2))
        return
    if load:
        if mix not in ("read", "write"):
            raise typer.BadParameter("mix: 'read' or 'write'", param_hint="--mix")
        from simulator.bench import load as read_mix
        from simulator.bench import writes as write_mix

        chosen = write_mix if mix == "write" else read_mix
        rates = (rest_rate or chosen.TARGETS["rest"], mcp_rate or chosen.TARGETS["mcp"])
        extra = {"record": record, "workers": max(workers, 1)} if mix == "write" else {}
        figures = chosen.run(world, episodes, seconds, *rates, **extra)
        if workers > 1 and mix == "read":
            from simulator.bench.shards import run as run_shards

            figures["shards"] = run_shards(world, workers, episodes, seconds, clients)
        print(json.dumps(figures, indent=2))
        return
    from simulator.bench.figures import run

    figures = run(world, repeat, live)
    if ray:
        from simulator.runner import bench_ray

        figures["ray"] = bench_ray.run()
    print(json.dumps(figures, indent=2))


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
