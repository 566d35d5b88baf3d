"""How each person writes: a greeting, a sign-off and a length, the same in every message they send.

A voice is drawn from the world's seed and the person's address alone, so a person sounds the same in
a deal thread, a support case and team talk, and adding a story elsewhere does not change it. Replies
quote the message they answer in full, under Gmail's attribution line in the world's time zone (the
line the mail app writes when an agent replies).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

GREETINGS = ["Hi {first},", "Hello {first},", "{first},", "Hey {first},", "Good morning {first},", "Dear {first},"]
GROUP_GREETINGS = {"Hi {first},": "Hi all,", "Hello {first},": "Hello everyone,", "{first},": "All,",
                   "Hey {first},": "Hey team,", "Good morning {first},": "Good morning all,",
                   "Dear {first},": "Dear all,"}
SIGN_OFFS = ["Best,", "Thanks,", "Cheers,", "Regards,", "Best regards,", "Thank you,", "—"]
# What a chattier writer adds around the point of a message.
OPENERS = ["Hope your week is going well.", "Hope you are well.", "Quick one from me.", "Hope all is well.",
           "Hope the week is treating you well.", "A short note from me."]
CLOSERS = ["Let me know if anything is unclear.", "Happy to jump on a call if that is easier.",
           "Shout if you need anything else from me.", "Talk soon.", "Looking forward to hearing from you.",
           "No rush on this, but a reply this week would help."]


@dataclass(frozen=True)
class Voice:
    greeting: str
    sign_off: str
    length: int  # 0 terse, 1 a pleasantry, 2 a pleasantry before and after
    full_signature: bool
    opener: str
    closer: str

    def write(self, name: str, title: str | None, to_names: list[str], body: str) -> str:
        """The message text: greeting, the point (with this writer's padding), sign-off."""
        first = to_names[0].split()[0] if to_names else "there"
        hello = GROUP_GREETINGS[self.greeting] if len(to_names) > 2 else self.greeting.format(first=first)
        parts = ([self.opener] if self.length >= 2 else []) + [body] + ([self.closer] if self.length >= 1 else [])
        sign = f"{self.sign_off}\n{name}" + (f"\n{title}" if self.full_signature and title else "")
        if self.sign_off == "—":
            sign = f"— {name.split()[0]}"
        return f"{hello}\n\n" + "\n\n".join(parts) + f"\n\n{sign}\n"


@lru_cache(maxsize=4096)
def voice_of(seed: int, address: str) -> Voice:
    rng = random.Random(f"{seed}:voice:{address}")
    return Voice(greeting=rng.choice(GREETINGS), sign_off=rng.choice(SIGN_OFFS), length=rng.choice([0, 1, 1, 2]),
                 full_signature=rng.random() < 0.5, opener=rng.choice(OPENERS), closer=rng.choice(CLOSERS))


def attribution(when: datetime) -> str:
    """'Tue, Mar 10, 2026 at 9:14 AM' for an aware time already in the world's zone (as the mail app writes)."""
    return f"{when:%a, %b} {when.day}, {when.year} at {when.hour % 12 or 12}:{when:%M %p}"


def quoted(sender_name: str, sender: str, when: datetime, body: str) -> str:
    """The whole previous message under its attribution line, each line prefixed with '> '."""
    lines = "\n".join("> " + line if line else ">" for line in body.rstrip("\n").splitlines())
    return f"On {attribution(when)} {sender_name or sender} <{sender}> wrote:\n{lines}\n"
