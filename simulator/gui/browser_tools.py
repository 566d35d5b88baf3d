"""The browser as MCP tools of an episode (``browser_*``), for episodes created with ``"browser": true``.

One MCP client can then drive the GUI: each tool is one browser action and answers with the page's
accessibility snapshot (``[ref=…]`` marks to click by) and the operations the action caused. An episode
enabled with ``observation="pixels"`` (or ``"marks"``: numbered set-of-marks drawn on the clickable elements)
gets ``PIXEL_TOOLS`` instead: each answers with a screenshot, and elements are named by mark, by text (a
field by its label) or by coordinates.
"""

from __future__ import annotations

import base64
import json
import threading
from typing import TYPE_CHECKING

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from apps.kit import Invalid, NotFound
from apps.kit.errors import Unavailable
from apps.kit.operation import invalid_from
from apps.kit.settings import settings
from simulator.gui.browser import OBSERVATIONS, Browser

if TYPE_CHECKING:
    from mcp import types

Ref = Field(description="An element's ref from the last snapshot, e.g. 'f1e12'")


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Goto(Args):
    url: str = Field(description="A page of this episode's GUI, e.g. 'mail', 'crm/Opportunity' or 'docs?view=starred'")


class Click(Args):
    ref: str = Ref


class Fill(Args):
    ref: str = Ref
    text: str = Field(description="The text to type into the field (replaces what is there)")


class Select(Args):
    ref: str = Ref
    value: str = Field(description="The option to choose, by its label or value")


class Check(Args):
    ref: str = Ref
    checked: bool = Field(True, description="Tick (true) or untick (false)")


class Press(Args):
    key: str = Field(description="A key such as 'Enter', 'Tab' or 'Control+a'")
    ref: str | None = Field(None, description="Element to focus first; the focused element when left out")


class Scroll(Args):
    dy: int = Field(600, description="Pixels to scroll down (negative: up)")


class WaitFor(Args):
    text: str = Field(description="Text to wait for on the page")
    timeout_ms: int = Field(5000, ge=0, le=30000, description="How long to wait, in milliseconds")


class Screenshot(Args):
    full_page: bool = Field(False, description="The whole page rather than what is in view")


TOOLS: dict[str, tuple[type[Args], str]] = {
    "browser_goto": (Goto, "Open a page of the apps' GUI."),
    "browser_click": (Click, "Click an element (a link, button, checkbox...) by its ref."),
    "browser_fill": (Fill, "Type text into an input or text area by its ref."),
    "browser_select": (Select, "Choose an option of a drop-down by its ref."),
    "browser_check": (Check, "Tick or untick a checkbox by its ref."),
    "browser_press": (Press, "Press a key, e.g. Enter to submit a form."),
    "browser_scroll": (Scroll, "Scroll the page."),
    "browser_back": (Args, "Go back to the previous page."),
    "browser_wait_for": (WaitFor, "Wait until some text shows on the page."),
    "browser_snapshot": (Args, "Read the current page: its accessibility tree with element refs."),
    "browser_screenshot": (Screenshot, "A PNG screenshot of the current page."),
}


class Aim(Args):
    """An element named in a screenshot: by its mark, its text, or a point (x and y together)."""
    mark: int | None = Field(None, ge=1, description="The number drawn on the element in the last screenshot")
    text: str | None = Field(None, description="Text the element shows, e.g. a link's or a button's")
    x: int | None = Field(None, ge=0, description="Pixels from the left of the view")
    y: int | None = Field(None, ge=0, description="Pixels from the top of the view")

    @model_validator(mode="after")
    def _one_target(self) -> "Aim":
        aims = [self.mark is not None, self.text is not None, self.x is not None or self.y is not None]
        if sum(aims) != 1 or (aims[2] and (self.x is None or self.y is None)):
            raise ValueError("give exactly one of mark, text, or x and y together")
        return self


class AimField(Args):
    """A form field named in a screenshot: by its mark or its label (``label``), or a point (fill only)."""
    mark: int | None = Field(None, ge=1, description="The number drawn on the field in the last screenshot")
    label: str | None = Field(None, description="The field's label as shown, e.g. 'Stage'")

    @model_validator(mode="after")
    def _one_target(self) -> "AimField":
        x, y = getattr(self, "x", None), getattr(self, "y", None)
        points = x is not None or y is not None
        if (self.mark is not None) + (self.label is not None) + points != 1 or (points and (x is None or y is None)):
            raise ValueError("give exactly one of mark, label" + (", or x and y together" if hasattr(self, "x") else ""))
        return self


class FillAt(AimField):
    text: str = Field(description="The text to type into the field (replaces what is there)")
    x: int | None = Field(None, ge=0, description="Pixels from the left of the view")
    y: int | None = Field(None, ge=0, description="Pixels from the top of the view")


class SelectAt(AimField):
    value: str = Field(description="The option to choose, by its label or value")


class CheckAt(AimField):
    checked: bool = Field(True, description="Tick (true) or untick (false)")


class Key(Args):
    key: str = Field(description="A key such as 'Enter', 'Tab' or 'Control+a', pressed on the focused element")


PIXEL_TOOLS: dict[str, tuple[type[Args], str]] = {   # aimed by mark, text or point; the rest as in TOOLS
    "browser_goto": TOOLS["browser_goto"],
    "browser_click": (Aim, "Click an element by its mark, its text, or a point."),
    "browser_fill": (FillAt, "Type text into a field by its mark, its label, or a point."),
    "browser_select": (SelectAt, "Choose an option of a drop-down by its mark or label."),
    "browser_check": (CheckAt, "Tick or untick a checkbox by its mark or label."),
    "browser_press": (Key, "Press a key, e.g. Enter to submit a form."),
    "browser_scroll": TOOLS["browser_scroll"],
    "browser_back": TOOLS["browser_back"],
    "browser_wait_for": TOOLS["browser_wait_for"],
    "browser_screenshot": (Args, "Look at the page again."),
}
PIXEL_NOTE = " Answers with the page's URL, the operations the action caused and a screenshot."
NOTE = " Answers with the page's URL, the operations the action caused and its accessibility snapshot."


class BrowserTools:
    """The ``browser_*`` tools, offered to the episodes that opted in; one Chromium for all of them."""

    def __init__(self, browser: Browser | None = None):
        self.browser = browser or Browser()
        self.enabled: dict[str, str] = {}
        self.observations: dict[str, str] = {}   # episode id -> snapshot, pixels or marks
        self._lock = threading.Lock()
        self._tools: list[types.Tool] | None = None   # made with the MCP server (the SDK is imported only then)

    def enable(self, episode, server_url: str, observation: str = "snapshot") -> None:
        """Offer the browser to ``episode``; its pages are fetched from ``server_url`` (this server); it sees them as
        ``observation`` says (``snapshot``: the accessibility tree; ``pixels``; ``marks``: pixels with numbered marks)."""
        if observation not in OBSERVATIONS:
            raise Invalid(f"observation: {observation!r} is not one of {', '.join(OBSERVATIONS)}", field="observation")
        with self._lock:
            self.enabled[episode.id] = (settings().browser_base or server_url).rstrip("/")
            self.observations[episode.id] = observation

    def discard(self, episode_id: str) -> None:
        with self._lock:
            self.observations.pop(episode_id, None)
            if self.enabled.pop(episode_id, None) is not None:
                self.browser.discard(episode_id)

    def close(self) -> None:
        self.browser.close()

    def tools(self, episode) -> list[types.Tool]:
        if episode.id not in self.enabled:
            return []
        if self._tools is None:
            from mcp import types

            def listed(tools: dict, note: str) -> list[types.Tool]:
                return [types.Tool(name=name, description=doc + ("" if name == "browser_screenshot" else note),
                                   input_schema=model.model_json_schema(),
                                   annotations=types.ToolAnnotations(open_world_hint=False))
                        for name, (model, doc) in tools.items()]
            self._tools = listed(TOOLS, NOTE)
            self._pixel_tools = listed(PIXEL_TOOLS, PIXEL_NOTE)
        return self._tools if self._mode(episode.id) == "snapshot" else self._pixel_tools

    def observation(self, episode_id: str) -> str | None:
        """How the episode's browser shows pages (snapshot, pixels or marks); None when it has no browser."""
        return self.observations.get(episode_id) if episode_id in self.enabled else None

    def forms(self, episode_id: str) -> dict[str, list[dict]]:
        """The episode's browser tools in OpenAI and MCP form (empty without a browser), for the control API."""
        mode = self.observation(episode_id)
        if mode is None:
            return {"openai": [], "mcp": []}
        tools, note = (TOOLS, NOTE) if mode == "snapshot" else (PIXEL_TOOLS, PIXEL_NOTE)
        described = [(name, doc + ("" if name == "browser_screenshot" else note), model.model_json_schema())
                     for name, (model, doc) in tools.items()]
        return {"openai": [{"type": "function", "function": {"name": n, "description": d, "parameters": p}}
                           for n, d, p in described],
                "mcp": [{"name": n, "description": d, "inputSchema": p} for n, d, p in described]}

    async def rest_call(self, episode, name: str, arguments: dict) -> dict:
        """A browser tool called over the control API: ``{tool, arguments, result, error}`` as a step reads, the
        result the observation (in pixels modes its screenshot base64 PNG under ``screenshot``); a failed action
        is an observation with its ``error``, a refused call raises ``OpError`` as the MCP call would."""
        answer = await self.call(episode, name, arguments)
        result = dict(answer.structured_content or {})
        for part in answer.content:
            if part.type == "image":
                result["screenshot"] = part.data
        failed = result.get("error")
        return {"tool": name, "arguments": arguments, "surface": "control", "result": result,
                "error": {"type": "browser", "message": failed} if failed else None}

    def input_schema(self, name: str, episode_id: str | None = None) -> dict | None:
        tools = TOOLS if self._mode(episode_id) == "snapshot" else PIXEL_TOOLS
        return tools[name][0].model_json_schema() if name in tools else None

    def _mode(self, episode_id: str | None) -> str:
        return self.observations.get(episode_id or "", "snapshot")

    async def call(self, episode, name: str, arguments: dict) -> types.CallToolResult:
        if episode.id not in self.enabled:
            raise NotFound(f"unknown tool {name!r}: create the episode with \"browser\": true to use the browser")
        mode = self._mode(episode.id)
        tools = TOOLS if mode == "snapshot" else PIXEL_TOOLS
        if name not in tools:
            raise NotFound(f"unknown tool {name!r}")
        try:
            args = tools[name][0].model_validate(arguments).model_dump(exclude_none=True)
        except ValidationError as exc:
            raise invalid_from(exc.errors()) from None
        try:
            session = self.browser.session(episode, self.enabled[episode.id], mode)
            if mode != "snapshot":
                return await self._look(session, name, args)
            return await self._act(session, name, args)
        except RuntimeError as exc:  # no Chromium here, or it could not start: the call did nothing
            raise Unavailable(f"browser: {exc}") from None

    async def _act(self, session, name: str, args: dict) -> types.CallToolResult:
        from mcp import types

        if name == "browser_screenshot":
            png = await anyio.to_thread.run_sync(lambda: session.screenshot(**args))
            return types.CallToolResult(content=[types.ImageContent(type="image", data=base64.b64encode(png).decode(),
                                                                    mime_type="image/png")])
        if name == "browser_snapshot":
            seen = await anyio.to_thread.run_sync(session.observe)
        else:
            seen = await anyio.to_thread.run_sync(lambda: session.act(name.removeprefix("browser_"), **args))
        return types.CallToolResult(content=[types.TextContent(type="text", text=observation_text(seen))],
                                    structured_content={k: v for k, v in seen.items()}, is_error=bool(seen["error"]))


    async def _look(self, session, name: str, args: dict) -> types.CallToolResult:
        """A pixels-mode action: the screenshot after it, and its URL, errors and operations as text."""
        from mcp import types

        if name == "browser_screenshot":
            seen = await anyio.to_thread.run_sync(session.observe)
        else:
            seen = await anyio.to_thread.run_sync(lambda: session.act(name.removeprefix("browser_"), **args))
        png = base64.b64encode(seen["screenshot"]).decode()
        return types.CallToolResult(content=[types.ImageContent(type="image", data=png, mime_type="image/png"),
                                             types.TextContent(type="text", text=observation_text(seen))],
                                    structured_content={k: v for k, v in seen.items() if k != "screenshot"},
                                    is_error=bool(seen["error"]))


def observation_text(seen: dict) -> str:
    """An observation as an agent reads it."""
    lines = [f"URL: {seen['url']}", f"Title: {seen['title']}"]
    if seen["error"]:
        lines.append(f"Error: {seen['error']}")
    if seen["operations"]:
        lines.append("Operations: " + json.dumps(seen["operations"]))
    return "\n".join(lines) + ("\n\n" + seen["snapshot"] if "snapshot" in seen else "")
