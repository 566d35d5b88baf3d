"""``officeworld tasks export``: the catalog as a dataset, one row per task, in the layout ``datasets`` loads
(``load_dataset("json", data_files=...)`` or ``"parquet"``): what a trainer may see of a task, and its figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from tasks.model import Task

FIGURES = ("oracle_calls", "writes", "reads", "apps", "setup_calls", "distractors")


def row(task: Task) -> dict:
    public = task.public()
    figures = {f"figure_{name}": int(task.figures.get(name, 0)) for name in FIGURES}
    return {"id": task.id, "world": task.world, "split": task.split, "family": task.family, "suite": task.suite,
            "actor": public["actor"], "title": task.title, "prompt": task.prompt, "apps": public["apps"],
            "tags": task.tags, "difficulty": task.difficulty, **figures}


def export(tasks: Iterable[Task], out: Path, fmt: str) -> int:
    rows = [row(t) for t in tasks]
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "parquet":
        try:
            import pyarrow as pa  # type: ignore[import-untyped]
            import pyarrow.parquet as pq  # type: ignore[import-untyped]
        except ImportError:
            raise ValueError("parquet needs pyarrow (pip install pyarrow, or ./dev.sh setup --trainers); "
                             "or export --format jsonl") from None
        pq.write_table(pa.Table.from_pylist(rows), out)
    else:
        raise ValueError(f"format {fmt!r}: jsonl or parquet")
    return len(rows)
