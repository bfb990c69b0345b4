"""Load a corpus in CUAD v1's master-clauses layout (`master_clauses.csv` + `full_contract_txt/`).

The release's filenames are quirky (NOTICE.md): the CSV says `.pdf`/`.PDF` (once `.PDF'`), `&` and
`'` became `_` in the text filenames, trailing spaces, dots and hyphens differ, and one name uses
another Unicode normal form. Rather than a list of exceptions, both sides are reduced to one
*match key* by a general rule, and the match must be one-to-one.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from lhl_platform.domain.models import Contract, OracleRow
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES, canonical_clause_type


class CorpusError(ValueError):
    """A corpus that cannot be loaded whole; the message names the file (and row/column)."""


@dataclass(frozen=True)
class Corpus:
    name: str
    contracts: tuple[Contract, ...]
    oracle: tuple[OracleRow, ...]

    @property
    def corpus_id(self) -> str:
        digest = hashlib.sha256()
        for c in self.contracts:
            digest.update(c.contract_id.encode() + b"\0" + c.sha256.encode() + b"\n")
        for row in self.oracle:
            digest.update(repr((row.contract_id, row.clause_type, row.spans)).encode())
        return digest.hexdigest()[:16]

    @property
    def n_present(self) -> int:
        return sum(row.present for row in self.oracle)


_EXTENSION = re.compile(r"\.(pdf|txt)'?\s*$", re.IGNORECASE)


def match_key(filename: str) -> str:
    """Reduce a CSV `Filename` or a text file name to the key both sides share."""
    key = unicodedata.normalize("NFC", filename)
    key = _EXTENSION.sub("", key)
    key = re.sub(r"[&'’_]", "_", key)
    key = re.sub(r"\s+", " ", key)
    return key.rstrip(" .-_").casefold()


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not valid UTF-8 text (byte {exc.start})") from exc


def _parse_header(header: list[str], csv_path: Path) -> dict[str, tuple[int, int]]:
    """Map each canonical clause type to its (context, answer) column indices."""
    if not header or header[0].strip().lstrip("\ufeff") != "Filename":
        raise CorpusError(f"{csv_path}: first column must be 'Filename'")
    columns: dict[str, dict[str, int]] = {}
    for index, raw in enumerate(header[1:], start=1):
        name = raw.strip()
        answer = re.search(r"-\s*Answer$", name, flags=re.IGNORECASE)
        base = name[: answer.start()] if answer else name
        try:
            clause = canonical_clause_type(base)
        except ValueError:
            raise CorpusError(f"{csv_path}: unknown column {raw!r} (column {index + 1})") from None
        slot = "answer" if answer else "context"
        if slot in columns.setdefault(clause, {}):
            raise CorpusError(f"{csv_path}: duplicate column for {clause!r} ({slot})")
        columns[clause][slot] = index
    missing = [f"{c} ({s})" for c in CLAUSE_TYPES for s in ("context", "answer") if s not in columns.get(c, {})]
    if missing:
        raise CorpusError(f"{csv_path}: missing columns: {', '.join(missing[:5])}")
    return {c: (columns[c]["context"], columns[c]["answer"]) for c in CLAUSE_TYPES}


def _spans(cell: str, where: str) -> tuple[str, ...]:
    text = cell.strip()
    if not text:
        return ()
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise CorpusError(f"{where}: context is not a list literal: {text[:60]!r}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{where}: context must be a list of strings")
    return tuple(v for v in value if v.strip())


def load_master_layout(root: Path, name: str | None = None) -> Corpus:
    """Load every contract and all 41 oracle cells per contract, or raise CorpusError."""
    root = Path(root)
    csv_path, text_dir = root / "master_clauses.csv", root / "full_contract_txt"
    if not csv_path.is_file():
        raise CorpusError(f"{csv_path}: missing (expected CUAD v1 layout: master_clauses.csv)")
    if not text_dir.is_dir():
        raise CorpusError(f"{text_dir}: missing folder of contract texts")
    try:
        with csv_path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{csv_path}: not valid UTF-8 (byte {exc.start})") from exc
    if not rows:
        raise CorpusError(f"{csv_path}: empty file")
    columns = _parse_header(rows[0], csv_path)

    files: dict[str, Path] = {}
    for path in text_dir.iterdir():
        if path.suffix.lower() != ".txt":
            continue
        key = match_key(path.name)
        if key in files:
            raise CorpusError(f"{path}: text file name collides with {files[key].name} after normalisation")
        files[key] = path

    contracts: list[Contract] = []
    oracle: list[OracleRow] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"{csv_path}:{line}"
        if len(row) != len(rows[0]):
            raise CorpusError(f"{where}: {len(row)} cells, header has {len(rows[0])}")
        key = match_key(row[0])
        if key in seen:
            raise CorpusError(f"{where}: Filename {row[0]!r} duplicates row {seen[key]}")
        seen[key] = line
        text_path = files.get(key)
        if text_path is None:
            raise CorpusError(f"{where}: no text file in {text_dir} matches Filename {row[0]!r}")
        text = _read_text(text_path)
        contract_id = unicodedata.normalize("NFC", text_path.stem)
        contracts.append(Contract(contract_id=contract_id, filename=text_path.name, text=text,
                                  sha256=hashlib.sha256(text.encode("utf-8")).hexdigest()))
        for clause, (ctx, ans) in columns.items():
            spans = _spans(row[ctx], f"{where} column {rows[0][ctx]!r}")
            oracle.append(OracleRow.model_construct(
                contract_id=contract_id, clause_type=clause, category=CATEGORY_OF[clause],
                present=bool(spans), spans=spans, answer=row[ans].strip()))
    unmatched = sorted(set(files) - set(seen))
    if unmatched:
        raise CorpusError(f"{files[unmatched[0]]}: text file has no row in {csv_path.name}"
                          + (f" (and {len(unmatched) - 1} more)" if len(unmatched) > 1 else ""))
    if not contracts:
        raise CorpusError(f"{csv_path}: no contract rows")
    return Corpus(name=name or root.name, contracts=tuple(contracts), oracle=tuple(oracle))
