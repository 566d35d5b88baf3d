"""The world's files written and digested the quick way: the YAML writer's bytes are the safe dumper's,
and the kept digest of a folder changes with any change to its files without reading them again."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
import yaml

from worlds import digest, loader
from worlds.digest import content_hash
from worlds.writer import _Dumper


def _full_digest(root: Path) -> str:
    """The digest as first written: every file read, in the order of the sorted paths."""
    hashed = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        hashed.update(os.fsencode(path.relative_to(root).as_posix()) + b"\0")   # a name's bytes, UTF-8 or not
        hashed.update(hashlib.sha256(path.read_bytes()).digest())
    return hashed.hexdigest()


def _dump(data, dumper) -> str:
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=110)


@pytest.mark.parametrize("world", ["acme", "harbor-legal"])
def test_the_writer_dumps_what_the_safe_dumper_dumps(world):
    files = sorted((loader.WORLDS_DIR / world).rglob("*.yaml"))
    assert files
    safe = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert _dump(data, _Dumper) == _dump(data, safe), path


def test_the_writer_keeps_aliases_odd_scalars_and_flow_choices():
    shared = [1, {"a": "b"}]
    data = {"x": shared, "y": shared, "float": 1e17, "nan": float("nan"), "yes": "yes", "empty": "", "none": None,
            "true": True, "int": -3, "when": dt.datetime(2026, 3, 10, 9, 14), "day": dt.date(2026, 3, 10),
            "tuple": (1, 2), "bytes": b"\x00\xff", "nested": [[], {}, ["é", "a: b", "- c", "1.5", "null"]],
            7: "an int key", "long": "word " * 40}
    safe = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    assert _dump(data, _Dumper) == _dump(data, safe)
    assert "&" in _dump(data, _Dumper)  # the shared list is written once, as an anchor and an alias
    for options in ({"default_flow_style": None}, {"sort_keys": True}, {"default_style": '"'}):
        assert yaml.dump(data, Dumper=_Dumper, **options) == yaml.dump(data, Dumper=safe, **options)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A copy of acme whose digest may be kept at once (no wait for its files to settle)."""
    monkeypatch.setattr(digest, "_SETTLED_S", -3600.0)
    root = tmp_path / "acme"
    shutil.copytree(loader.WORLDS_DIR / "acme", root)
    return root


def test_the_digest_is_the_full_read_and_is_kept(folder, tmp_path, monkeypatch):
    memo = tmp_path / "memo.json"
    assert content_hash(folder, memo) == _full_digest(folder)
    assert memo.is_file()

    def no_reading(path, *args, **kwargs):
        raise AssertionError(f"{path} was read again")

    kept = content_hash(folder, memo)
    monkeypatch.setattr(digest, "open", no_reading, raising=False)  # the loader's files are opened with open()
    assert content_hash(folder, memo) == kept
    memo.unlink()
    with pytest.raises(AssertionError, match="read again"):
        content_hash(folder, memo)


@pytest.mark.parametrize("change", ["same size, time put back", "a file added", "a file removed", "renamed"])
def test_any_change_to_the_files_gives_a_new_digest(change, folder, tmp_path):
    memo = tmp_path / "memo.json"
    before = content_hash(folder, memo)
    target = next(p for p in sorted(folder.rglob("*.eml")))
    time.sleep(0.05)  # past the file system's clock tick, which the kept digest waits for (_SETTLED_S)
    if change == "same size, time put back":
        raw, times = target.read_bytes(), target.stat()
        target.write_bytes(raw[:-1] + (b"x" if raw[-1:] != b"x" else b"y"))
        os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))
    elif change == "a file added":
        (folder / "mail" / "notes.txt").write_text("hello")
    elif change == "a file removed":
        target.unlink()
    else:
        target.rename(target.with_name("zz-" + target.name))
    after = content_hash(folder, memo)
    assert after != before
    assert after == _full_digest(folder)


def _no_walk(root):
    raise AssertionError(f"{root} was walked again")


def test_an_unchanged_world_is_stated_not_walked_nor_read(folder, tmp_path, monkeypatch):
    memo = tmp_path / "memo.json"
    kept = content_hash(folder, memo)
    assert memo.with_suffix(".list").is_file()
    monkeypatch.setattr(digest, "_walk_world", _no_walk)
    monkeypatch.setattr(digest, "open", _no_walk, raising=False)
    assert content_hash(folder, memo) == kept


def _change(folder: Path, change: str, outside: Path) -> None:
    thread = sorted(p for p in (folder / "mail").iterdir() if p.is_dir())[0]
    if change == "a file added in a sub-folder":
        (thread / "zz-late.eml").write_text("From: x@example.com\n\nlate")
    elif change == "a file removed from a sub-folder":
        sorted(thread.iterdir())[0].unlink()
    elif change == "an empty folder added":
        (folder / "mail" / "empty").mkdir()
    elif change == "a folder renamed":
        thread.rename(thread.with_name("zz-" + thread.name))
    elif change == "a folder removed":
        shutil.rmtree(thread)
    elif change == "a file turned into a folder":
        target = sorted(thread.iterdir())[0]
        target.unlink()
        target.mkdir()
        (target / "inner.txt").write_text("inside")
    elif change == "a linked folder turned into a file":
        shutil.rmtree(outside)
        outside.write_text("now a file")
    elif change == "a dangling link's file made":
        (outside.parent / "later.txt").write_text("made later")
    elif change == "a linked file edited":
        (outside.parent / "linked.txt").write_text("edited")
    else:
        raise AssertionError(change)


@pytest.mark.parametrize("change", ["a file added in a sub-folder", "a file removed from a sub-folder",
                                    "an empty folder added", "a folder renamed", "a folder removed",
                                    "a file turned into a folder", "a linked folder turned into a file",
                                    "a dangling link's file made", "a linked file edited"])
def test_the_quick_stamp_sees_what_the_walk_sees(change, folder, tmp_path):
    """Each change is caught by stat'ing the kept listing alone: a folder's times move when an entry is
    added, removed or renamed in it; a link is followed as the walk follows it."""
    outside = tmp_path / "outside" / "folder"
    outside.mkdir(parents=True)
    (outside.parent / "linked.txt").write_text("linked")
    (folder / "docs" / "to-a-folder").symlink_to(outside)
    (folder / "docs" / "dangling.txt").symlink_to(outside.parent / "later.txt")
    (folder / "docs" / "a-link.txt").symlink_to(outside.parent / "linked.txt")
    memo = tmp_path / "memo.json"
    time.sleep(0.05)   # the links' folder settles past the clock tick
    before = content_hash(folder, memo)
    assert before == _full_digest(folder) and digest._quick_stamp(folder, digest._listing_of(memo))
    time.sleep(0.05)
    _change(folder, change, outside)
    assert digest._quick_stamp(folder, digest._listing_of(memo)) != json.loads(memo.read_text())["quick"]
    assert content_hash(folder, memo) == _full_digest(folder)
    assert content_hash(folder, memo) == _full_digest(folder)   # and kept anew


def test_a_name_with_a_line_break_keeps_no_listing_and_is_walked(folder, tmp_path, monkeypatch):
    (folder / "docs" / "two\nlines.txt").write_text("odd name")
    memo = tmp_path / "memo.json"
    assert content_hash(folder, memo) == _full_digest(folder)
    assert json.loads(memo.read_text())["quick"] is None and not memo.with_suffix(".list").exists()
    walks = []
    walk = digest._walk_world
    monkeypatch.setattr(digest, "_walk_world", lambda root: walks.append(root) or walk(root))
    assert content_hash(folder, memo) == _full_digest(folder) and len(walks) == 1


def test_a_name_that_is_not_utf8_is_digested_by_its_bytes(folder, tmp_path):
    """Such a name (possible on Linux) keeps no listing, as above, and is digested as its bytes: it was a crash."""
    odd = os.path.join(os.fsencode(folder / "docs"), b"notes-\xff.txt")
    with open(odd, "wb") as f:
        f.write(b"one")
    memo = tmp_path / "memo.json"
    before = content_hash(folder, memo)
    assert before == _full_digest(folder) and json.loads(memo.read_text())["quick"] is None
    with open(odd, "wb") as f:
        f.write(b"two")
    assert content_hash(folder, memo) == _full_digest(folder) != before


def test_random_edits_give_the_full_digest_each_time(folder, tmp_path):
    """The kept digest against the full read after each of many random changes (the reference)."""
    rng = random.Random(7)
    memo = tmp_path / "memo.json"
    assert content_hash(folder, memo) == _full_digest(folder)
    for step in range(30):
        time.sleep(0.02)   # past the file system's clock tick
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        folders = sorted(p for p in folder.rglob("*") if p.is_dir())
        kind = rng.choice(["edit", "edit back in time", "add", "remove", "rename", "new folder", "move"])
        target, where = rng.choice(files), rng.choice(folders)
        if kind == "edit":
            with target.open("ab") as f:
                f.write(b"x")
        elif kind == "edit back in time":
            raw, times = target.read_bytes(), target.stat()
            target.write_bytes(raw[:-1] + (b"x" if raw[-1:] != b"x" else b"y") if raw else b"y")
            os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))
        elif kind == "add":
            (where / f"added-{step}.txt").write_text(f"step {step}")
        elif kind == "remove":
            target.unlink()
        elif kind == "rename":
            target.rename(target.with_name(f"renamed-{step}-{target.name}"))
        elif kind == "new folder":
            (where / f"folder-{step}").mkdir()
            (where / f"folder-{step}" / "one.txt").write_text("one")
        else:
            target.rename(where / f"moved-{step}-{target.name}")
        assert content_hash(folder, memo) == _full_digest(folder), (step, kind, target, where)


def test_fresh_files_are_digested_but_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(digest, "_SETTLED_S", 3600.0)
    root = tmp_path / "w"
    shutil.copytree(loader.WORLDS_DIR / "acme", root)
    memo = tmp_path / "memo.json"
    assert content_hash(root, memo) == _full_digest(root)
    assert not memo.exists()


def test_the_collector_is_paused_inside_and_left_as_found():
    import gc

    from worlds.gcpause import paused

    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # the caller's choice is kept
    finally:
        gc.enable()
    with pytest.raises(ValueError), paused():
        raise ValueError("an error inside")
    assert gc.isenabled()


def test_the_checked_world_yaml_is_kept_and_taken_while_unchanged(folder, tmp_path, monkeypatch):
    """``load_info`` keeps the checked ``world.yaml``; an unchanged file is not read nor checked again,
    a changed one (or other code, or a torn memo) is."""
    memo = tmp_path / "info.memo"
    root, first = loader.load_info(folder, memo=memo)
    assert root == folder and memo.is_file()
    read = []
    real = loader._load_info
    monkeypatch.setattr(loader, "_load_info", lambda *a: read.append(a) or real(*a))
    _, again = loader.load_info(folder, memo=memo)
    assert again == first and read == []   # the same people, outsiders, time and zone; nothing read

    monkeypatch.setattr(loader, "_CODE_DIGEST", "another-reader")
    assert loader.load_info(folder, memo=memo)[1] == first and len(read) == 1
    memo.write_text(memo.read_text()[:-20])   # torn: read again, kept again
    assert loader.load_info(folder, memo=memo)[1] == first and len(read) == 2
    assert loader.load_info(folder, memo=memo)[1] == first and len(read) == 2

    time.sleep(0.05)
    text = (folder / "world.yaml").read_text()
    (folder / "world.yaml").write_text(text.replace(f"company: {first.company}", "company: Other Co"))
    assert loader.load_info(folder, memo=memo)[1].company == "Other Co" and len(read) == 3
    (folder / "world.yaml").write_text(text.replace(f"default_actor: {first.default_actor}",
                                                    "default_actor: nobody@nowhere.test"))
    with pytest.raises(loader.WorldError, match="default_actor"):   # still checked, never taken from the memo
        loader.load_info(folder, memo=memo)


def test_a_fresh_world_yaml_is_read_but_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(digest, "_SETTLED_S", 3600.0)
    root = tmp_path / "w"
    shutil.copytree(loader.WORLDS_DIR / "acme", root)
    memo = tmp_path / "info.memo"
    assert loader.load_info(root, memo=memo)[1].name == "acme"
    assert not memo.exists()


_AHEAD_PROBE = """
import os
import sys
from pathlib import Path
from worlds import digest
root, memo = Path(sys.argv[1]), Path(sys.argv[2])
parent, real, walk = os.getpid(), digest._stats, digest._walk_world
def only_in_the_child(*args):
    assert os.getpid() != parent, "stat'ed in this process"
    return real(*args)
digest._stats = only_in_the_child
digest._walk_world = None   # nor walked
assert digest.stamp_ahead(root, memo)
kept = digest.content_hash(root, memo)   # the child's stamp matches the memo: nothing stat'ed here
(root / "mail" / "late.txt").write_text("changed after the memo was kept")
digest._stats, digest._walk_world = real, walk
assert digest.stamp_ahead(root, memo)
print(kept, digest.content_hash(root, memo))   # the stamp does not match: walked and read again here
"""


def test_a_stamp_taken_ahead_by_a_child_process_stands_for_the_walk(folder, tmp_path):
    """``stamp_ahead`` (what ``officeworld up`` starts before its imports) stats the files in a child; the
    digest is then kept without a walk here, and a stamp that does not match the memo is walked again."""
    import subprocess
    import sys

    memo = tmp_path / "memo.json"
    before = content_hash(folder, memo)
    assert before == _full_digest(folder)
    env = {**os.environ, "PYTHONPATH": str(Path(loader.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", _AHEAD_PROBE, str(folder), str(memo)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    kept, changed = done.stdout.split()
    assert kept == before != changed == _full_digest(folder)
