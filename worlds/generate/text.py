"""Subjects and bodies of generated mail: short templates filled with the records they are about."""

from __future__ import annotations

import random

from faker import Faker

DEAL_OPENERS = [
    ("Pricing for {opp}", "Following our call, the proposal for {opp} comes to ${amount:,.0f}. We are aiming to "
     "close by {close:%B %-d}. Next step on our side: {next}."),
    ("{account} renewal terms", "Ahead of the renewal, here is where we are on {opp}: ${amount:,.0f}, currently at "
     "{stage}. Can you confirm who signs on your side?"),
    ("Security questionnaire for {account}", "Your security team asked for our SOC 2 report and the data flow "
     "diagram for {opp}. I have attached what we have; the remaining answers follow this week."),
    ("Contract redlines: {opp}", "Legal has returned the redlines for {opp}. The open points are the liability cap "
     "and the payment terms; everything else is agreed. Target signature {close:%B %-d}."),
]
DEAL_REPLIES = [
    "Thanks. {point} Let's keep {close:%B %-d} as the target.",
    "Understood. {point} I'll come back to you by Friday.",
    "Appreciated. {point} Can we do a 30-minute call on Tuesday?",
]
CASE_OPENER = ("{subject}", "Hello, since yesterday we have been seeing this: {subject}. {detail} This is "
               "blocking part of our team; can you take a look?")
CASE_REPLIES = [
    "Thanks for the report. I have reproduced it and opened an internal ticket; I'll update you within a day.",
    "We have deployed a fix. Could you confirm that it works on your side?",
    "Confirmed, it works now. Thank you for the quick turnaround.",
    "Could you send the exact time it happened and the user affected? That will help us trace it.",
]
INTERNAL_TOPICS = ["Weekly {team} sync notes", "Q{quarter} planning for {team}", "Hiring: open {team} role",
                   "Process change in {team}", "Offsite agenda", "Customer feedback round-up"]


def point(fake: Faker, rng: random.Random) -> str:
    return rng.choice([f"On the {fake.bs()} question, we are aligned.", f"The team liked the {fake.catch_phrase().lower()}.",
                       "Procurement needs one more week.", "Our CFO wants a quarterly payment option.",
                       "The pilot numbers look good."])


def paragraph(fake: Faker, nb_sentences: int = 3) -> str:
    """``fake.paragraph(nb_sentences)``, the same text from the same draws of its random generator, without
    faker's general sampling machinery (under half the cost; the mail of an ``xl`` world asks 50,000 times).
    ``tests/worlds/test_generate.py`` holds it to faker's own."""
    if nb_sentences <= 0:
        return ""
    draw = fake.random
    words = fake.get_words_list()
    sentences = []
    for _ in range(max(int(nb_sentences * draw.randint(60, 140) / 100), 1)):
        picked = draw.choices(words, k=max(int(6 * draw.randint(60, 140) / 100), 1))  # never one word: 6*0.6
        sentences.append(" ".join([picked[0].title(), *picked[1:]]) + ".")
    return " ".join(sentences)
