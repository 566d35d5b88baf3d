"""What a screenshot agent sees: a page render (a PNG, optionally with numbered marks on the clickable elements)
and, kept beside it for graders, what the page showed (the records linked on it, its fields, its text, in order).

A mark is a number drawn on an element (set-of-marks); the element keeps it as ``data-ow-mark`` until the next
render, so an action may target it. A render of a recorded episode is written beside its trajectory file:
``<file>.shots/render-<n>.png`` and ``.json`` (what it showed), and ``step-<index>.png`` for each step the
action before it caused, which the trajectory viewer shows on those steps.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_MARK = """(draw) => {
  document.querySelectorAll('.ow-mark').forEach(e => e.remove());
  document.querySelectorAll('[data-ow-mark]').forEach(e => e.removeAttribute('data-ow-mark'));
  const pick = 'a[href], button, input:not([type=hidden]), select, textarea, summary, ' +
               '[role=button], [role=link], [role=checkbox], [role=tab]';
  const out = [];
  for (const el of document.querySelectorAll(pick)) {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (r.width < 1 || r.height < 1 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) continue;
    if (s.visibility === 'hidden' || s.display === 'none') continue;
    const mark = out.length + 1;
    el.setAttribute('data-ow-mark', String(mark));
    const name = (el.getAttribute('aria-label') || el.innerText || el.value || el.placeholder || el.name || '').trim();
    out.push({mark, tag: el.tagName.toLowerCase(), name: name.slice(0, 80), x: Math.round(r.left), y: Math.round(r.top),
              w: Math.round(r.width), h: Math.round(r.height)});
    if (!draw) continue;
    const box = document.createElement('div');
    box.className = 'ow-mark';
    box.style.cssText = `position:fixed;left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px;` +
      'outline:2px solid #e11d48;pointer-events:none;z-index:2147483647';
    const tag = document.createElement('span');
    tag.textContent = String(mark);
    tag.style.cssText = 'position:absolute;left:-2px;top:-14px;background:#e11d48;color:#fff;' +
                        'font:bold 11px sans-serif;padding:0 3px';
    box.appendChild(tag);
    document.body.appendChild(box);
  }
  return out;
}"""

_SHOWN = """() => {
  const seen = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const records = [], fields = [];
  for (const a of document.querySelectorAll('a[href]')) {
    const m = (a.getAttribute('href') || '')
      .match(/\\/gui\\/(mail\\/thread|crm\\/[A-Za-z]+|docs\\/files|calendar\\/[a-z]+)\\/([0-9A-Za-z_-]+)$/);
    if (m && seen(a)) records.push({kind: m[1], id: m[2], text: a.innerText.trim().slice(0, 160)});
  }
  for (const f of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (!seen(f)) continue;
    const label = f.labels && f.labels[0] ? f.labels[0].innerText.trim() : (f.getAttribute('aria-label') || f.name);
    fields.push({name: f.name, label, value: f.type === 'checkbox' ? f.checked : f.value});
  }
  const text = document.body.innerText.split('\\n').map(s => s.trim()).filter(Boolean);
  return {records, fields, text};
}"""

_UNMARK = "() => document.querySelectorAll('.ow-mark').forEach(e => e.remove())"


@dataclass
class Render:
    index: int
    url: str
    png: bytes
    marks: list[dict] = field(default_factory=list)   # per mark: its number, tag, name and box (for graders, not the agent)
    shown: dict[str, Any] = field(default_factory=dict)   # records, fields, text: what the page showed, in order
    action: int | None = None     # the browser action it followed
    steps: list[int] = field(default_factory=list)   # the steps that action caused


def render(page, index: int, marks: bool) -> Render:
    """Screenshot ``page`` (with numbered marks drawn when ``marks``), and read what it showed."""
    for attempt in range(5):
        try:
            return _render(page, index, marks)
        except Exception as exc:
            if attempt == 4 or not any(sign in str(exc) for sign in _NAVIGATING):
                raise
            page.wait_for_load_state()
            page.wait_for_timeout(100 * (attempt + 1))
    raise AssertionError("unreachable")


# What Chromium answers when a render meets a navigation that an action started but Playwright did not wait for
# (a click by coordinates that submits a form): the page's scripts are gone, the new document has no frame to capture
# yet, or the capture waits on the old document until it times out. Each passes once the new page has loaded.
_NAVIGATING = ("context was destroyed", "Unable to capture screenshot", "Page.screenshot: Timeout")


def _render(page, index: int, marks: bool) -> Render:
    found = page.evaluate(_MARK, marks)
    try:
        png = page.screenshot()
    finally:
        if marks:
            page.evaluate(_UNMARK)
    return Render(index, page.url, png, found, page.evaluate(_SHOWN))


def target(page, mark: int | None = None, text: str | None = None, label: str | None = None):
    """The element an action names by its mark, its text, or its field's label (exactly one of them)."""
    given = [name for name, v in (("mark", mark), ("text", text), ("label", label)) if v is not None]
    if len(given) != 1:
        raise LookupError("target: give exactly one of mark, text, label (or x and y)")
    if mark is not None:
        found = page.locator(f'[data-ow-mark="{int(mark)}"]')
    elif label is not None:
        found = page.get_by_label(label)
    else:
        found = page.get_by_text(text, exact=False)
    if found.count() == 0:
        raise LookupError(f"{given[0]}: nothing on this page matches {mark if mark is not None else text or label!r}")
    return found.first


def keep(shot: Render, episode) -> None:
    """Write the render beside the episode's trajectory file, when it has one."""
    path = getattr(getattr(episode, "recorder", None), "path", None)
    if path is None:
        return
    folder = Path(path).with_suffix(".shots")
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / f"render-{shot.index}.png"
    png.write_bytes(shot.png)
    (folder / f"render-{shot.index}.json").write_text(json.dumps(
        {"url": shot.url, "action": shot.action, "steps": shot.steps, "marks": shot.marks, "shown": shot.shown}))
    for step in shot.steps:   # the same picture for every step the action caused: linked, not copied, where it can be
        linked = folder / f"step-{step}.png"
        linked.unlink(missing_ok=True)
        try:
            os.link(png, linked)
        except OSError:
            shutil.copyfile(png, linked)
