"""The suite's commands (docs/formats.md section 1):

- `lhl scrub build --contracts N --seed S`: an item set built by seeded injection from the active corpus, recorded
  (the set, its seed and the verifier's report are events) and made active; the same corpus, N and seed record
  the same bytes;
- `lhl scrub export FILE.jsonl [--item-set ID]`: a recorded set in the release format, written atomically; with
  `--as-findings NAME [--run N]`, its gold in the findings format instead (every call of the set, as model NAME's
  answers), which `lhl import findings` reads back as a complete system scoring 1.0;
- `lhl ingest contractscrub FILE.jsonl`: a release JSONL validated whole (a bad line is one error naming it),
  recorded and made active;
- `lhl import findings FILE.jsonl [--item-set ID]`: predictions made elsewhere, validated whole against the item
  set, then recorded and scored by the same code as the platform's own calls, in one atomic write. Each imported
  (model, run) is expected to cover every (contract, category) of the set, so a line absent is a missing call.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from pydantic import BaseModel, Field

from lhl_platform.domain.models import MODEL_NAME_PATTERN, RunNumber
from lhl_platform.files import write_atomic
from lhl_platform.home import Home
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.events import ScrubEventType, ScrubFindingsImported, ScrubItemsBuilt, ScrubScope
from lhl_platform.scrub.imports import gold_findings, parse_findings
from lhl_platform.scrub.items import Finding, ScrubItem, export_items
from lhl_platform.scrub.stages import IMPORTS_STREAM, build_set, ingest_file, write_scores
from lhl_platform.scrub.store import StoredSet, load_set
from lhl_platform.scrub.versions import items_at_version, later_gold, write_later_scores
from lhl_platform.suites.contract import Command
from lhl_platform.suites.gold_lineage import version_to_export


def _gold_table(stored: StoredSet) -> str:
    counts = dict.fromkeys(CATEGORY_KEYS, 0)
    for item in stored.items:
        for g in item.gold:
            counts[g.category] += 1
    summary = stored.summary
    lines = []
    for category, n in counts.items():
        extra = ""
        if isinstance(summary, ScrubItemsBuilt) and category != "defined_terms":
            extra = f"  (targeted {summary.targeted.get(category, 0)})"
        elif category == "defined_terms" and (stored.built or getattr(summary, "injected", False)):
            extra = "  (derived by the definition parser, not annotated)"
        lines.append(f"  {category:<30} {n:>6}{extra}")
    return "\n".join(lines)


def cmd_build(args: argparse.Namespace, home: Home) -> int:
    stored = build_set(home, args.contracts, args.seed)
    summary = stored.summary
    assert isinstance(summary, ScrubItemsBuilt)
    report = summary.report
    print(f"{stored.describe()}; now the active ContractScrub set")
    print(f"eligible contracts: {summary.eligible} of the corpus; skipped after injection: {len(summary.skipped)}")
    print("gold per category:")
    print(_gold_table(stored))
    rejected = sum(r.count for r in report.rejected)
    print(f"verifier ({report.verifier_version}): {rejected} injections rejected"
          + (": " + ", ".join(f"{r.reason} {r.count}" for r in report.rejected) if rejected else ""))
    distances = ", ".join(f"{b} {n}" for b, n in report.section_reference_distances.items())
    print(f"section-reference distances (characters): {distances}; longest {report.longest_section_reference}; "
          f"{report.references_past_long_distance} past 10,000")
    print(f"export digest (sha256): {summary.export_sha256}; `lhl scrub export FILE.jsonl` writes these bytes")
    return 0


def _at_version(home: Home, stored: StoredSet, version: int | None) -> tuple[tuple[ScrubItem, ...], str]:
    """The set's items at the gold version asked for (default: the newest), each line naming a reviewed version,
    and the words saying which version it is."""
    reviewed = version_to_export(home, "contractscrub", stored.item_set, version)
    if reviewed is None:
        return stored.items, "gold version 1 (as recorded, not reviewed)"
    items = items_at_version(home, stored.item_set, stored.items, reviewed.gold_version)
    return (tuple(i.model_copy(update={"reviewed": reviewed}) for i in items),
            f"gold version {reviewed.gold_version} (reviewed by {', '.join(reviewed.reviewers)})")


def cmd_export(args: argparse.Namespace, home: Home) -> int:
    if args.as_findings is not None:
        return _export_findings(args, home)
    stored = load_set(home, args.item_set)
    items, which = _at_version(home, stored, args.gold_version)
    data = export_items(items)
    summary = stored.summary
    if items is stored.items and isinstance(summary, ScrubItemsBuilt) and \
            hashlib.sha256(data).hexdigest() != summary.export_sha256:
        raise ValueError(f"item set {stored.item_set} does not export the bytes it was built as")
    write_atomic(Path(args.file), data)
    print(f"wrote {stored.describe()}, {which}, to {args.file} ({len(data):,} bytes, sha256 "
          f"{hashlib.sha256(data).hexdigest()})")
    return 0


class _Answers(BaseModel):
    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber


def _export_findings(args: argparse.Namespace, home: Home) -> int:
    who = _Answers(model=args.as_findings, run=args.run)  # what the import will require of every line
    model, run = who.model, who.run
    stored = load_set(home, args.item_set)
    items, which = _at_version(home, stored, args.gold_version)
    data = gold_findings(items, model, run)
    write_atomic(Path(args.file), data)
    calls = len(items) * len(CATEGORY_KEYS)
    print(f"wrote the gold of {stored.describe()}, {which}, to {args.file} as {calls} findings lines of model "
          f"{model}, run {run} (every call of the set); `lhl import findings {args.file}` scores it")
    return 0


def cmd_ingest(args: argparse.Namespace, home: Home) -> int:
    stored = ingest_file(home, Path(args.file))
    print(f"{stored.describe()}; {stored.new_items} new items recorded; now the active ContractScrub set")
    print("gold per category:")
    print(_gold_table(stored))
    return 0


def cmd_import_findings(args: argparse.Namespace, home: Home) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    data = path.read_bytes()
    stored = load_set(home, args.item_set)
    calls = parse_findings(data, path.name, stored.items)  # the whole file, before anything is written
    sha = hashlib.sha256(data).hexdigest()
    pairs = sorted({(c.model, c.run) for c in calls})
    ids = tuple(item.contract_id for item in stored.items)
    new = 0
    later = later_gold(home, stored.item_set, stored.items)  # reviewed: the calls are scored in every gold version
    with home.events.writer(IMPORTS_STREAM, atomic=True) as writer:  # all of the file or nothing
        for model, run in pairs:
            writer.append(ScrubEventType.SCOPE, f"{model}/{run}", f"scrub.scope:{stored.item_set}:{model}:{run}",
                          ScrubScope(model=model, run=run, item_set=stored.item_set, items=ids, source="import"))
        for c in calls:
            new += writer.append(ScrubEventType.FINDINGS_IMPORTED, f"{c.contract_id}/{c.category}",
                                 f"scrub.findings_imported:{stored.item_set}:{sha}:{c.line}",
                                 ScrubFindingsImported(model=c.model, run=c.run, item_set=stored.item_set,
                                                       contract_id=c.contract_id, category=c.category,
                                                       findings=c.findings, file_sha256=sha, line=c.line))
        for model, run in pairs:
            answers: dict[tuple[str, CategoryKey], tuple[tuple[Finding, ...], str]] = {
                (c.contract_id, c.category): (c.findings, f"{sha}:{c.line}") for c in calls
                if (c.model, c.run) == (model, run)}
            write_scores(writer, stored.items, stored.item_set, model, run, answers, "imported")
            write_later_scores(writer, later, stored.item_set, model, run, answers, "imported")
    expected = len(pairs) * len(ids) * len(CATEGORY_KEYS)
    absent = expected - len(calls)
    print(f"imported {len(calls)} calls of {len(pairs)} (model, run) pair(s) on {stored.describe()} ({new} new); "
          f"{absent} of {expected} expected calls are absent and reported as missing"
          + (" (a model with a missing call is incomplete: no overall figure, no rank)" if absent else "")
          + "; see `lhl report --suite contractscrub`")
    return 0


def _define_build(p: argparse.ArgumentParser) -> None:
    p.add_argument("--contracts", type=int, required=True, help="how many contracts to build items from (the "
                   "paper: 44)")
    p.add_argument("--seed", type=int, default=0, help="the build's seed (default 0)")


def _define_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the JSONL file to write (the release format of docs/formats.md section 1)")
    p.add_argument("--item-set", dest="item_set", help="a recorded item set (default: the active one)")
    p.add_argument("--as-findings", dest="as_findings", metavar="NAME", help="write the set's gold in the findings "
                   "format of `lhl import findings` instead, as model NAME's answers (every call of the set)")
    p.add_argument("--run", type=int, default=1, help="with --as-findings: the run the answers are of (default 1)")
    p.add_argument("--gold-version", dest="gold_version", type=int, metavar="N",
                   help="the gold version to write (`lhl review`; default: the newest); a reviewed version names "
                        "itself and its reviewers on every line")


def _define_ingest(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a JSONL file in the release format, one contract a line")


def _define_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="one (model, run, contract_id, category, findings) a line")
    p.add_argument("--item-set", dest="item_set", help="the item set the findings are for (default: the active one)")


COMMANDS = (
    Command(("scrub", "build"), "build a ContractScrub item set by seeded defect injection from the active corpus "
            "(self-built: synthetic defects, derived defined terms)", _define_build, cmd_build),
    Command(("scrub", "export"), "write a recorded ContractScrub item set in the release JSONL format (or its gold "
            "as findings, --as-findings NAME)",
            _define_export, cmd_export),
    Command(("ingest", "contractscrub"), "load a ContractScrub item set in the release JSONL format",
            _define_ingest, cmd_ingest),
    Command(("import", "findings"), "import ContractScrub findings made elsewhere (validated whole, written "
            "atomically, scored by the suite's own code)", _define_import, cmd_import_findings),
)
