"""`lhl import outcomes`: bring-your-own instance outcomes (CSV or Parquet), validated whole before any write."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from pydantic import ValidationError

from lhl_platform.clause.extraction.events import ExtractionEvent, OutcomeImported
from lhl_platform.corpus.store import active_corpus_id, corpus_folder, ingested_corpora
from lhl_platform.corpus.subsets import get_subset
from lhl_platform.domain.errors import flat
from lhl_platform.domain.models import MismatchType, VerdictLabel
from lhl_platform.events.payloads import AuditScope, EventType
from lhl_platform.home import Home

REQUIRED = ("model", "run", "contract_id", "clause_type", "gt_present", "predicted_present", "verdict",
            "mismatch_type")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


class ImportFileError(ValueError):
    pass


def _bool(value: Any, column: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{column}: expected true/false, got {value!r}")


def _blank(value: Any) -> str | None:
    return None if value is None or str(value).strip() == "" else str(value).strip()


def _bad_csv_row(path: Path) -> str | None:
    """The first data row whose field count differs from the header's, as "row N: ...", for a CSV that Arrow
    refused (a file cut short ends in such a row); None when every row has the header's width."""
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.reader(fh)
            width = len(next(reader, []))
            for number, fields in enumerate(reader, start=1):
                if fields and len(fields) != width:
                    return (f"row {number}: expected {width} columns, got {len(fields)}"
                            + (" (the file may be cut short)" if next(reader, None) is None else ""))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def read_table(path: Path) -> pa.Table:
    if not path.is_file():
        raise ImportFileError(f"{path}: no such file")
    try:
        if path.suffix.lower() == ".parquet":
            return pq.read_table(path)
        options = pacsv.ConvertOptions(strings_can_be_null=False, column_types={c: pa.string() for c in REQUIRED})
        return pacsv.read_csv(path, convert_options=options)
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:  # cut, corrupt or not CSV/Parquet at all
        row = _bad_csv_row(path) if path.suffix.lower() != ".parquet" else None
        if row is not None:
            raise ImportFileError(f"{path}: {row}") from None
        raise ImportFileError(f"{path}: cannot read ({flat(exc)})") from None


def _message(error: Mapping[str, Any]) -> str:
    """Pydantic's message without the prefix it puts before a validator's own text ("Value error, ...")."""
    text = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def parse_outcomes(path: Path, corpus_id: str = "imported") -> list[OutcomeImported]:
    """Every row validated; the first invalid row raises ImportFileError naming it (data row 1 = first row)."""
    table = read_table(path)
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise ImportFileError(f"{path}: missing column(s): {', '.join(missing)}")
    columns = {c: table.column(c).to_pylist() for c in REQUIRED}
    rows: list[OutcomeImported] = []
    for i in range(table.num_rows):
        raw = {c: columns[c][i] for c in REQUIRED}
        try:
            verdict = _blank(raw["verdict"])
            mismatch = _blank(raw["mismatch_type"])
            if verdict is not None and mismatch is None:
                # A verdict without a type: 'none' when supported, 'other' when contradicted.
                supported = verdict == VerdictLabel.SUPPORTED.value
                mismatch = (MismatchType.NONE if supported else MismatchType.OTHER).value
            rows.append(OutcomeImported(
                corpus_id=corpus_id, model=str(raw["model"]).strip(), run=int(str(raw["run"]).strip()),
                contract_id=str(raw["contract_id"]).strip(), clause_type=str(raw["clause_type"]).strip(),
                gt_present=_bool(raw["gt_present"], "gt_present"),
                predicted_present=_bool(raw["predicted_present"], "predicted_present"),
                verdict=verdict, mismatch_type=mismatch))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "row"
            raise ImportFileError(f"{path}: row {i + 1}: {field}: {_message(first)}") from None
        except ValueError as exc:
            raise ImportFileError(f"{path}: row {i + 1}: {exc}") from None
    return rows


def refuse_foreign_contracts(home: Home, path: Path, rows: list[OutcomeImported], corpus_id: str) -> None:
    """Every row's contract must be one of the active corpus's: an unknown id would silently widen the
    scope (and a report would print whatever the file holds as if it were a contract of the corpus)."""
    table = pq.read_table(corpus_folder(home, corpus_id) / "contracts.parquet", columns=["contract_id"])
    known = set(table.column("contract_id").to_pylist())
    for i, row in enumerate(rows):
        if row.contract_id not in known:
            name = ingested_corpora(home)[corpus_id].name
            raise ImportFileError(f"{path}: row {i + 1}: contract_id {row.contract_id!r} is not in the active "
                                  f"corpus {name!r} ({corpus_id}); ingest the corpus the outcomes belong to first")


def oracle_disagreements(home: Home, rows: list[OutcomeImported], corpus_id: str) -> list[int]:
    """The rows (0-based) whose `gt_present` is not the active corpus's oracle for their contract and clause type:
    their figures rest on the file's ground truth, not the one the corpus's audits are scored against."""
    table = pq.read_table(corpus_folder(home, corpus_id) / "oracle.parquet",
                          columns=["contract_id", "clause_type", "present"])
    oracle = dict(zip(zip(table.column("contract_id").to_pylist(), table.column("clause_type").to_pylist(),
                          strict=True), table.column("present").to_pylist(), strict=True))
    return [i for i, row in enumerate(rows)
            if (truth := oracle.get((row.contract_id, row.clause_type))) is not None and bool(truth) != row.gt_present]


def import_outcomes(home: Home, path: Path, *, subset: str | None = None, contracts: Sequence[str] | None = None,
                    warn: Callable[[str], None] | None = None) -> tuple[int, int]:
    """Validate the whole file, then append one event per row; returns (rows, newly written).

    Each (model, run) of the import covers every contract of the import, whichever model's rows name it, or the
    stored `subset` or the `contracts` listed when given: a contract a model lacks there is a missing row of that
    model and run (so a contract it lacks in every run is a persistent gap), never "not covered". The coverage is
    recorded as one `audit.scope` event per (model, run), as an audit records its partition's.

    All or nothing: the rows are committed as one segment when every one of them was appended, and no
    segment at all when anything fails on the way (an unreadable file, an invalid row, a damaged log,
    an error while writing)."""
    if subset is not None and contracts is not None:
        raise ValueError("name the contracts an import covers with a subset or a list, not both")
    data = path.read_bytes() if path.is_file() else b""
    # Outcomes belong to the corpus active at import time (or to the pseudo-corpus 'imported' without one).
    corpus_id = active_corpus_id(home) if ingested_corpora(home) else "imported"
    rows = parse_outcomes(path, corpus_id)
    digest = hashlib.sha256(data).hexdigest()[:16]
    # The warehouse is rebuilt from the whole log right after an import; if any stream is damaged that
    # would fail, so check first and write nothing.
    home.events.segments(corpora_dir=home.corpora_dir)
    if corpus_id != "imported":
        refuse_foreign_contracts(home, path, rows, corpus_id)
        differ = oracle_disagreements(home, rows, corpus_id)
        if differ and warn is not None:
            first = rows[differ[0]]
            warn(f"{path}: {len(differ)} row(s) give a gt_present the active corpus's oracle does not (first: row "
                 f"{differ[0] + 1}, {first.contract_id!r} / {first.clause_type!r}); their rates rest on the file's "
                 "ground truth, not the corpus's")
    named = sorted(set(get_subset(home, subset).contract_ids if subset is not None else contracts or ()))
    where = f"subset {subset!r}" if subset is not None else "the contracts listed"
    if named:
        allowed = set(named)
        for i, row in enumerate(rows):
            if row.contract_id not in allowed:
                raise ImportFileError(f"{path}: row {i + 1}: contract_id {row.contract_id!r} is not in {where}")
    elif contracts is not None:
        raise ImportFileError(f"{path}: the list of contracts the import covers is empty")
    covered = named or sorted({row.contract_id for row in rows})
    cells = sorted({(row.model, row.run) for row in rows})
    home.ensure()
    with home.events.writer(f"import.{digest}", atomic=True) as writer:
        for row in rows:
            writer.append(ExtractionEvent.IMPORTED, f"{row.model}/{row.run}",
                          f"import:{row.model}:{row.run}:{row.contract_id}:{row.clause_type}", row)
        written = writer.written
        for model, run in cells:
            writer.append(EventType.AUDIT_SCOPE, f"{model}/{run}", f"scope:import:{model}:{run}:{corpus_id}:"
                          + hashlib.sha256("\n".join(covered).encode()).hexdigest()[:16],
                          AuditScope(model=model, run=run, corpus_id=corpus_id, contract_ids=covered))
    return len(rows), written
