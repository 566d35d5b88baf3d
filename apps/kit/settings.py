"""Every environment variable officeworld reads, in one settings object (the README has the table).

``settings()`` reads the environment each time it is called, at the point of use, so a test (or an
operator) that changes a variable is seen by the next server, store or client made. Empty values
count as unset; text is stripped. The agent CLI ``ow`` (``simulator/agent/ow.py``) stays stdlib-only
and reads its own ``OW_*`` variables; the typer options of ``officeworld`` (``OFFICEWORLD_HOST``,
``OFFICEWORLD_PORT``...) are read by typer. It lives in the kit, the layer every package may import.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """``OFFICEWORLD_<FIELD>`` for each field (``XDG_CACHE_HOME`` as it is)."""

    model_config = SettingsConfigDict(env_prefix="OFFICEWORLD_", env_ignore_empty=True, str_strip_whitespace=True,
                                      extra="ignore")

    token: str = Field("", description="Bearer token of the control API (/v1); the server makes and prints one "
                                       "when unset; clients send it")
    admin_token: str = Field("", description="Token of the app services' internal admin API, shared by the gateway "
                                             "and the services")
    allowed_hosts: str = Field("", description="Extra Host headers the MCP endpoint accepts, comma-separated "
                                               "(loopback always)")
    public_url: str = Field("", description="Base URL clients and sandboxes reach the server at (e.g. "
                                             "http://gateway:8000): every URL the control API hands out starts with "
                                             "it (default: the address each request came to); its host is an allowed "
                                             "MCP Host; read at the server's first request")
    browser_base: str = Field("", description="Base URL the browser tool opens pages at (default: the server's own)")
    chromium: str = Field("", description="Path of the Chromium binary (default: chromium on PATH)")
    trajectory_dir: Path | None = Field(None, description="Folder where episodes stream trajectory files "
                                                          "(default: none kept)")
    # An hour: far above the longest gap a training run leaves between calls on one episode (a model turn, a
    # rollout waiting for its batch: seconds to minutes), and it bounds what a crashed run leaks to one hour's worth.
    idle_timeout: float = Field(3600, ge=0, description="Seconds after which an idle episode (no call, finished or "
                                                        "not) is dropped (0: never)")
    cache_dir: Path | None = Field(None, description="Compiled-world cache (default: $XDG_CACHE_HOME/officeworld)")
    xdg_cache_home: Path = Field(Path.home() / ".cache", validation_alias="XDG_CACHE_HOME",
                                 description="Base of the default cache folder")
    tasks_dir: Path | None = Field(None, description="Task suites to serve (default: the shipped tasks/suites)")
    corpus: str = Field("on", description="The generated task corpus served beside the suites: on (the shipped "
                                          "plan), off, or WORLD:COUNT,... (tasks per family on each world)")
    judge_url: str = Field("", description="OpenAI-compatible endpoint of the LLM judge (judge checks skip unset)")
    judge_model: str = Field("", description="Model name the judge asks for")
    judge_key: str = Field("", description="API key sent to the judge endpoint")
    npc_url: str = Field("", description="OpenAI-compatible endpoint of model-backed co-workers (unset: they "
                                         "answer by their rules)")
    npc_model: str = Field("", description="Model name a model-backed co-worker asks for when its file pins none")
    npc_key: str = Field("", description="API key sent to the co-workers' endpoint")
    npc_cache_dir: Path | None = Field(None, description="Where co-workers' model replies are kept by content "
                                                         "(default: the cache folder's npc-replies)")
    body_limit: int = Field(64 * 2**20, gt=0, description="Largest request body in bytes, on the gateway and the "
                                                          "app services (past it: 413); read when the server starts")
    # one worker of `officeworld up --workers N` (simulator/service/shards.py sets both for each worker it starts)
    worker: str = Field("", pattern=r"^(w[0-9]{1,3})?$", description="This gateway's worker tag (w0, w1...): "
                        "every episode it makes has it in its id (ep_w1_...), which the router routes by")
    peers: str = Field("", description="The other workers, tag=URL comma-separated (w1=http://127.0.0.1:8101): "
                                       "the episode listing and /health ask them too")
    # one replica of compose's scaled gateway (compose.scale.yaml; simulator/service/replicas.py): it claims a tag
    worker_slots: int = Field(0, ge=0, le=256, description="Replicas of the gateway sharing one trajectory volume: "
                              "each claims a free tag w0..w<N-1> (a lock in OFFICEWORLD_TRAJECTORY_DIR) and waits "
                              "for one while all are held (0: not a replica)")
    router_url: str = Field("", description="With OFFICEWORLD_WORKER_SLOTS: the router the replicas reach each "
                                            "other through (compose's http://router:8000)")
    restart_hold: Path | None = Field(None, description="(tests) While this file exists, `up --workers N` does not "
                                                        "restart a worker that died")
    # the OpenEnv app that openenv.yaml names (trainers.openenv:app); `officeworld openenv` takes them as options
    server: str = Field("", description="World URL the OpenEnv app connects to (default: a world in its process)")
    suite: str = Field("", description="Suite the OpenEnv app draws its episodes' tasks from")
    task: str = Field("", description="Task of every OpenEnv episode (instead of a suite)")
    max_steps: int = Field(30, gt=0, description="Tool calls an OpenEnv episode may make before it is truncated")

    @field_validator("public_url")
    @classmethod
    def _an_http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.netloc):
            raise ValueError(f"public_url: {value!r} is not an http(s) URL such as http://gateway:8000")
        return value.rstrip("/")

    @property
    def cache(self) -> Path:
        """The compiled-world cache folder."""
        return self.cache_dir or self.xdg_cache_home / "officeworld"

    @property
    def npc_cache(self) -> Path:
        """The folder of co-workers' model replies (``scenarios.people.cache``)."""
        return self.npc_cache_dir or self.cache / "npc-replies"

    @property
    def hosts(self) -> list[str]:
        """The extra Host headers the MCP endpoint accepts: ``allowed_hosts``, and the public URL's host."""
        public = urlsplit(self.public_url).netloc if self.public_url else ""
        return [h.strip() for h in self.allowed_hosts.split(",") if h.strip()] + ([public] if public else [])

    @staticmethod
    def app_url(app: str) -> str:
        """``OFFICEWORLD_<APP>_URL``: where an app runs as its own service ("" when in the gateway)."""
        return os.environ.get(f"OFFICEWORLD_{app.upper()}_URL", "").strip()


def settings() -> Settings:
    """The settings as the environment has them now."""
    return Settings()
