"""A reading kept beside the hash cache (the corpora the ingest stream recorded) is read back only for the same
checked source and only under a valid seal: an altered entry, or new segments, are read again."""

from __future__ import annotations

import json
from pathlib import Path

from lhl_platform.events.integrity import kept_reading


def test_a_reading_is_kept_for_the_same_source(tmp_path: Path) -> None:
    reads: list[int] = []

    def read() -> dict[str, str]:
        reads.append(1)
        return {"corpus": "abc"}

    assert kept_reading(tmp_path, "kept.json", "h1,h2", read) == {"corpus": "abc"}
    assert kept_reading(tmp_path, "kept.json", "h1,h2", read) == {"corpus": "abc"}
    assert len(reads) == 1


def test_new_segments_are_read_again(tmp_path: Path) -> None:
    kept_reading(tmp_path, "kept.json", "h1", lambda: {"corpus": "old"})
    assert kept_reading(tmp_path, "kept.json", "h1,h2", lambda: {"corpus": "new"}) == {"corpus": "new"}


def test_an_altered_entry_is_not_trusted(tmp_path: Path) -> None:
    kept_reading(tmp_path, "kept.json", "h1", lambda: {"corpus": "recorded"})
    entry = json.loads((tmp_path / "kept.json").read_text())
    entry["value"] = {"corpus": "forged"}  # someone who can write the home, but has not the key
    (tmp_path / "kept.json").write_text(json.dumps(entry))
    assert kept_reading(tmp_path, "kept.json", "h1", lambda: {"corpus": "recorded"}) == {"corpus": "recorded"}
