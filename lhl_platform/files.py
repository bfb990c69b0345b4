"""Files written for the user (`--out`, exports, the schema): whole or not at all.

The bytes go to a temporary file in the target's own folder, are flushed to disk, and the file is renamed over
the target: a full disk, a quota or an interrupt leaves the previous file as it was, never a cut-off one. The
rename stays within one file system because the temporary file sits beside the target.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path


class OutputError(OSError):
    """A file that was asked for could not be written; the message names it and says why."""


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (through a symlink, its target); raise OutputError naming the
    file and the cause, with the previous file unchanged."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")
    existed = target.exists()
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if existed:
            shutil.copymode(target, tmp)  # a report kept private stays private
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        kept = "; the previous file is unchanged" if existed else ""
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}{kept}") from exc
