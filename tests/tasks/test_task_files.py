"""Task files: every problem named file:line, beyond what the schema sees."""

import pytest
import yaml

from tasks.loader import TaskFileError, load_suites

OPS = ["mail.reply", "mail.search", "task.submit_answer"]


def write(root, name, text):
    (root / "s").mkdir(parents=True, exist_ok=True)
    (root / "s" / name).write_text(text)


def problems(root) -> list[str]:
    with pytest.raises(TaskFileError) as err:
        load_suites(root, OPS)
    return err.value.problems


def test_every_problem_is_named_with_file_and_line(tmp_path):
    write(tmp_path, "a.yaml", yaml.safe_dump({
        "id": "a", "world": "acme", "prompt": "p",
        "bindings": {"m": {"from": "mail.message", "where": {"subject": "$later.subject"}}},
        "criteria": [{"id": "c", "records": {"from": "mail.sent", "where": {"subject": {"sounds_like": "x"}}}}],
        "oracle": [{"op": "mail.explode", "args": {}}, {"op": "mail.reply", "args": {"message_id": "$nope.id"}}],
    }, sort_keys=False))
    write(tmp_path, "b.yaml", "id: b\nworld: acme\nprompt: p\ncriteria: []\noracle: []\nsurprise: 1\n")
    write(tmp_path, "c.yaml", "id: [unclosed\n")
    found = "\n".join(problems(tmp_path))
    assert "a.yaml:5: binding m refers to $later" in found
    assert "a.yaml:10: criterion c: subject: unknown comparator" in found
    assert "unknown operation 'mail.explode'" in found
    assert "oracle refers to unbound $nope" in found
    assert "b.yaml:6: surprise: Extra inputs are not permitted" in found
    assert "b.yaml:4: criteria" in found
    assert "c.yaml:2: not valid YAML" in found


def test_ids_are_unique_across_suites(tmp_path):
    task = {"id": "same", "world": "acme", "prompt": "p", "criteria": [{"id": "c", "answer": {"type": "yesno", "expect": "yes"}}],
            "oracle": [{"op": "task.submit_answer", "args": {"answer": "yes"}}]}
    write(tmp_path, "one.yaml", yaml.safe_dump(task))
    write(tmp_path, "two.yaml", yaml.safe_dump(task))
    assert any("also used by" in p for p in problems(tmp_path))


def test_the_shipped_suites_load():
    from simulator.store.registry import all_operations

    tasks = load_suites(operations=[f"{o.app}.{o.name}" for o in all_operations()])
    assert tasks and all(t.oracle for t in tasks)
