"""The bundled demo corpus: twelve short commercial contracts written for this project.

Sources live in `demo_source/*.txt` with inline annotations `{{Clause Type|annotated span}}` (several
types separated by `;`). `build_demo_corpus` renders them into CUAD's master-clauses layout under
`demo_data/`, so the demo goes through the very loader that reads CUAD. The rendered files are
committed; a test checks they are in step with the sources.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from lhl_platform.corpus.cuad import Corpus, load_master_layout
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, canonical_clause_type

HERE = Path(__file__).parent
SOURCE_DIR = HERE / "demo_source"
DEMO_DIR = HERE / "demo_data"
_MARK = re.compile(r"\{\{([^|{}]+)\|([^{}]+)\}\}")
_YES_NO_EXCEPT = {"Document Name", "Parties", "Agreement Date", "Effective Date", "Expiration Date",
                  "Renewal Term", "Notice Period To Terminate Renewal", "Governing Law", "Warranty Duration"}


def render_source(source: str) -> tuple[str, dict[str, list[str]]]:
    """Strip the annotation marks; return the plain text and the spans per clause type."""
    spans: dict[str, list[str]] = {}

    def keep(match: re.Match[str]) -> str:
        for name in match.group(1).split(";"):
            spans.setdefault(canonical_clause_type(name), []).append(match.group(2))
        return match.group(2)

    return _MARK.sub(keep, source), spans


def render_files() -> dict[str, str]:
    """Relative path -> file content of the demo corpus in master-clauses layout."""
    files: dict[str, str] = {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["Filename"]
    for clause in CLAUSE_TYPES:
        header += [clause, f"{clause}-Answer"]
    writer.writerow(header)
    for path in sorted(SOURCE_DIR.glob("*.txt")):
        text, spans = render_source(path.read_text(encoding="utf-8"))
        files[f"full_contract_txt/{path.stem}.txt"] = text
        row = [f"{path.stem}.pdf"]
        for clause in CLAUSE_TYPES:
            found = spans.get(clause, [])
            answer = "; ".join(found) if clause in _YES_NO_EXCEPT else ("Yes" if found else "No")
            row += [repr(found), answer if found or clause not in _YES_NO_EXCEPT else ""]
        writer.writerow(row)
    files["master_clauses.csv"] = out.getvalue()
    return files


def build_demo_corpus(target: Path = DEMO_DIR) -> None:
    for rel, content in render_files().items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def load_demo_corpus() -> Corpus:
    return load_master_layout(DEMO_DIR, name="demo")


if __name__ == "__main__":
    build_demo_corpus()
    corpus = load_demo_corpus()
    print(f"demo corpus: {len(corpus.contracts)} contracts, {corpus.n_present} present cells")
