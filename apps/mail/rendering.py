"""HTML mail rendered as plain text for agents: what a reader sees, not the markup.

Block elements start new lines, list items get a dash, links keep their address, scripts, styles and
the head are dropped, entities are decoded and runs of blank space collapse. The standard library's
``HTMLParser`` is forgiving of broken markup, as mail clients must be.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK = {"p", "div", "br", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "blockquote",
          "section", "article", "header", "footer", "hr", "pre"}
_HIDDEN = {"script", "style", "head", "title"}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.href: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag == "a":
            self.href = dict(attrs).get("href")

    def handle_endtag(self, tag):
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag == "a" and self.href:
            if self.href.startswith(("http", "mailto:")) and self.href.removeprefix("mailto:") not in self.parts[-1:]:
                self.parts.append(f" <{self.href}>")
            self.href = None

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str | None) -> str:
    """The readable text of an HTML body ('' for none)."""
    if not html:
        return ""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [re.sub(r"[ \t\r\f\v\xa0]+", " ", line).strip() for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def body_text(text: str, html: str | None) -> str:
    """The plain body a message shows: its text part, or its HTML rendered when it has only that."""
    return text if text.strip() or not html else html_to_text(html)
