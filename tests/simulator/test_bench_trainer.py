"""The trainer figures run on a small world and measure what they say (no timing asserted)."""

from __future__ import annotations

from simulator.bench.trainer import write_overhead
from simulator.trajectories.files import files_in, read


def test_write_overhead_measures_a_recorder_that_really_writes(tmp_path, world_dir):
    figures = write_overhead(tmp_path / "t", str(world_dir), repeat=5)
    assert figures["recorder_per_step"]["samples"] == 25
    assert figures["mail.star_with_file"]["median_us"] > 0
    [path] = files_in(tmp_path / "t")   # only the recording store's episode keeps a file
    steps = read(path).steps
    assert len(steps) == 1 + 25 + 5 and {s.operation for s in steps} == {"star"}
