"""The one table: every answer submitted in the episode; the last one is the final answer."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class Answer(SQLModel, table=True):
    __tablename__ = "task_answer"
    id: int | None = Field(default=None, primary_key=True)
    author: str
    answer: str
    status: str
    submitted_at: datetime


TABLES: list[type[SQLModel]] = [Answer]
