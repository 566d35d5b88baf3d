"""Judge calibration: a labelled set per judged criterion, the judge's agreement with it, and the bar a
judge must clear to be counted.

A task's labelled sets live in ``tasks/calibration/<task id>.yaml``, one list per judged criterion::

    judged:
      - {label: pass, text: "Under s.14.2 ... needs Ridgeway's consent ...", note: the reference, reworded}
      - {label: fail, text: "... does not need Ridgeway's consent ...", note: negation}

``measure`` asks the judge about every item (as it would grade that text) and reports accuracy and
the false-positive rate (bad items it passed). A judge counts only at ``BAR`` or better; the result
is recorded per judge model, task, criterion and the exact set, rubric and reference
(``record``), and ``Judge.check`` refuses to count an uncalibrated or failed judge (the criterion is
then not checked, and a graded one makes the episode ungradable). Run by hand against a real
endpoint: ``officeworld tasks agreement TASK --judge`` (README, "Judge calibration").
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Sequence

import yaml

from tasks.model import JudgeCheck, Task

CALIBRATION_DIR = Path(__file__).parent / "calibration"
BAR = {"accuracy": 0.9, "false_positive_rate": 0.05}
_LOCK = threading.Lock()


class CalibrationError(ValueError):
    pass


def labelled(task: Task, criterion: str, root: Path = CALIBRATION_DIR) -> list[dict]:
    """The labelled set of one judged criterion (``CalibrationError`` when it is missing or malformed)."""
    path = root / f"{task.id}.yaml"
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise CalibrationError(f"no labelled set for {task.id}: {exc}") from None
    items = data.get(criterion) if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise CalibrationError(f"{path.name}: no labelled items for criterion {criterion!r}")
    for n, item in enumerate(items):
        if not isinstance(item, dict) or item.get("label") not in ("pass", "fail") or not str(item.get("text", "")).strip():
            raise CalibrationError(f"{path.name}: {criterion}[{n}] needs label (pass or fail) and text")
    if {i["label"] for i in items} != {"pass", "fail"}:
        raise CalibrationError(f"{path.name}: {criterion} needs both good (pass) and bad (fail) items")
    return items


def fingerprint(model: str, task: Task, criterion: str, spec: JudgeCheck, items: list[dict]) -> str:
    """What a calibration holds for: the model, the task and criterion, its rubric and reference, the set."""
    body = [model, task.id, task.version, criterion, spec.rubric, spec.reference, items]
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def measure(verdicts: Sequence[tuple[dict, str]]) -> dict[str, Any]:
    """Agreement of the judge's verdicts (``pass``/``fail``/``error``) with the labels; ``counted`` at the bar."""
    good = [v for i, v in verdicts if i["label"] == "pass"]
    bad = [v for i, v in verdicts if i["label"] == "fail"]
    agree = sum(v == i["label"] for i, v in verdicts)
    accuracy = agree / len(verdicts)
    fpr = sum(v == "pass" for v in bad) / len(bad)
    return {"items": len(verdicts), "good": len(good), "bad": len(bad), "accuracy": round(accuracy, 4),
            "false_positive_rate": round(fpr, 4), "errors": sum(v == "error" for _, v in verdicts), "bar": BAR,
            "counted": accuracy >= BAR["accuracy"] and fpr <= BAR["false_positive_rate"],
            "disagreements": [{"label": i["label"], "verdict": v, "note": i.get("note", ""), "text": i["text"][:160]}
                              for i, v in verdicts if v != i["label"]]}


def store_path() -> Path:
    from apps.kit.settings import settings

    return settings().cache / "judge-calibration.json"


def record(key: str, result: dict, path: Path | None = None) -> None:
    path = path or store_path()
    with _LOCK:
        data = _load(path)
        data[key] = {k: result[k] for k in ("items", "accuracy", "false_positive_rate", "counted")}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        tmp.replace(path)


def recorded(key: str, path: Path | None = None) -> dict | None:
    with _LOCK:
        return _load(path or store_path()).get(key)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
