"""The clause suite's source tables (`lhl_platform.warehouse.sources`): each stored corpus's answer key, and the
clause taxonomy (type, verification category, column position) its marts group and order by."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES
from lhl_platform.warehouse.sources import SourceTable

if TYPE_CHECKING:
    from lhl_platform.home import Home


def _oracles(home: Home) -> list[Path]:
    return sorted(home.corpora_dir.glob("*/oracle.parquet"))


ORACLE = SourceTable(
    "oracle", "corpus_id varchar, contract_id varchar, clause_type varchar, category varchar, present boolean",
    files=_oracles,
    select="""select regexp_extract(filename, '([^/]+)/oracle\\.parquet$', 1) as corpus_id,
                     contract_id, clause_type, category, present
              from read_parquet(?, filename = true)""")

TAXONOMY = SourceTable(
    "clause_taxonomy", "clause_type varchar, category varchar, position bigint",
    rows=lambda: [(c, str(CATEGORY_OF[c]), i) for i, c in enumerate(CLAUSE_TYPES)])

SOURCES = (ORACLE, TAXONOMY)
