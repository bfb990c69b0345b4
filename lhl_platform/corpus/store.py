"""Persist a loaded corpus in the home as content-addressed Parquet, and record it as an event."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lhl_platform.corpus.cuad import Corpus
from lhl_platform.domain.models import Contract, OracleRow
from lhl_platform.domain.taxonomy import Category
from lhl_platform.events.log import file_sha256
from lhl_platform.events.payloads import CorpusIngested, EventType
from lhl_platform.home import Home

CORPUS_STREAM = "corpus"


class NoCorpusError(RuntimeError):
    pass


def save_corpus(home: Home, corpus: Corpus, source: str) -> str:
    """Write the corpus under `corpora/<id>/` (once) and append a `corpus.ingested` event."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    home.ensure()
    folder = home.corpora_dir / corpus.corpus_id
    if not (folder / "oracle.parquet").exists():
        folder.mkdir(parents=True, exist_ok=True)
        contracts = pa.Table.from_pylist([c.model_dump() for c in corpus.contracts])
        oracle = pa.Table.from_pylist([
            {"contract_id": r.contract_id, "clause_type": r.clause_type, "category": str(r.category),
             "present": r.present, "spans": list(r.spans), "answer": r.answer} for r in corpus.oracle])
        pq.write_table(contracts, folder / "contracts.parquet", compression="zstd")
        pq.write_table(oracle, folder / ".oracle.tmp", compression="zstd")
        (folder / ".oracle.tmp").rename(folder / "oracle.parquet")  # the marker of a complete save
    # Every ingest is recorded (the latest one names the active corpus); the corpus itself is its content,
    # wherever it was read from, and its stored files' hashes let `lhl verify` notice any later change.
    ingests = len(_ingests(home))
    home.events.append(CORPUS_STREAM, EventType.CORPUS_INGESTED, corpus.corpus_id,
                       f"corpus.ingested:{corpus.corpus_id}:{ingests}",
                       CorpusIngested(corpus_id=corpus.corpus_id, name=corpus.name, source=source,
                                      contracts=len(corpus.contracts), instances=len(corpus.oracle),
                                      present=corpus.n_present, files=stored_file_hashes(folder)))
    return corpus.corpus_id


CORPUS_FILES = ("contracts.parquet", "oracle.parquet")


def stored_file_hashes(folder: Path) -> dict[str, str]:
    return {name: file_sha256(folder / name) for name in CORPUS_FILES}


def _ingests(home: Home) -> list[CorpusIngested]:
    return [e.data_as(CorpusIngested) for e in home.events.read(CORPUS_STREAM)]


def ingested_corpora(home: Home) -> dict[str, CorpusIngested]:
    """Every stored corpus by id, with its latest ingest record."""
    return {i.corpus_id: i for i in _ingests(home)}


def active_corpus_id(home: Home) -> str:
    ingests = _ingests(home)
    if not ingests:
        raise NoCorpusError(f"no corpus in {home.root}: run `lhl ingest cuad PATH` or `lhl demo` first")
    return ingests[-1].corpus_id


def corpus_folder(home: Home, corpus_id: str | None = None) -> Path:
    return home.corpora_dir / (corpus_id or active_corpus_id(home))


def load_corpus(home: Home, corpus_id: str | None = None) -> Corpus:
    folder = corpus_folder(home, corpus_id)
    return _load_folder(folder)


@lru_cache(maxsize=4)
def _load_folder(folder: Path) -> Corpus:
    import pyarrow.parquet as pq

    contracts = tuple(Contract.model_construct(**row)
                      for row in pq.read_table(folder / "contracts.parquet").to_pylist())
    oracle = tuple(OracleRow.model_construct(
        contract_id=row["contract_id"], clause_type=row["clause_type"], category=Category(row["category"]),
        present=row["present"], spans=tuple(row["spans"]), answer=row["answer"])
        for row in pq.read_table(folder / "oracle.parquet").to_pylist())
    return Corpus(name=folder.name, contracts=contracts, oracle=oracle)
