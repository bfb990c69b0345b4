"""Corpus assets (unpartitioned): the contracts, their oracle, and the clause taxonomy."""


from collections import Counter

from dagster import AssetExecutionContext, Config, MaterializeResult, MetadataValue, asset
from pydantic import Field

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import active_corpus_id, load_corpus, save_corpus
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES
from lhl_platform.extraction.definitions import DEFINITIONS
from resources import LhlHome


class CorpusConfig(Config):  # type: ignore[misc]
    path: str | None = Field(default=None, description="CUAD-layout folder to load; default: keep the home's "
                                                       "active corpus, or the bundled demo corpus if none")


@asset(group_name="corpus", description="The contracts of the active corpus, content-hashed and stored in the home.")
def contracts(context: AssetExecutionContext, config: CorpusConfig, lhl: LhlHome) -> MaterializeResult:
    home = lhl.home()
    try:
        current = active_corpus_id(home) if config.path is None else None
    except RuntimeError:
        current = None
    if current is None:
        source = config.path or str(DEMO_DIR)
        current = save_corpus(home, load_master_layout(source), source=source)
    corpus = load_corpus(home, current)
    return MaterializeResult(metadata={"corpus_id": current, "contracts": len(corpus.contracts),
                                       "characters": sum(len(c.text) for c in corpus.contracts)})


@asset(group_name="corpus", deps=[contracts], description="Ground truth per (contract, clause type): present when "
       "the annotated context holds a span.")
def oracle(lhl: LhlHome) -> MaterializeResult:
    corpus = load_corpus(lhl.home())
    present = Counter(str(r.category) for r in corpus.oracle if r.present)
    return MaterializeResult(metadata={"instances": len(corpus.oracle), "present": corpus.n_present,
                                       **{f"present_{k}": v for k, v in sorted(present.items())}})


@asset(group_name="corpus",
       description="The 41 CUAD clause types and their verification categories (docs/method.md, section 2).")
def clause_taxonomy() -> MaterializeResult:
    rows = [f"| {c} | {CATEGORY_OF[c]} | {DEFINITIONS[c]} |" for c in CLAUSE_TYPES]
    table = "| clause type | category | definition |\n|---|---|---|\n" + "\n".join(rows)
    counts = Counter(str(v) for v in CATEGORY_OF.values())
    return MaterializeResult(metadata={"clause_types": len(CLAUSE_TYPES), **{k: v for k, v in counts.items()},
                                       "taxonomy": MetadataValue.md(table)})
