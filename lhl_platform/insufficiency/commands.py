"""The suite's commands: `lhl ingest insufficiency [FILE.jsonl]`, `lhl insufficiency export FILE.jsonl`,
`lhl import responses FILE.jsonl`, `lhl import judgments FILE.jsonl` (docs/formats.md section 2) and
`lhl insufficiency judge`.

An import is validated whole against the item set (every line names one of its items; a judgment judges each
gold element once) and written atomically: all its lines or none. Each imported (model, run) is expected to
cover every item of the set (an `insufficiency.scope` event), so a line absent is reported as missing, never
scored as an empty answer. Importing the same file again records nothing new.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from lhl_platform.files import write_atomic
from lhl_platform.home import Home
from lhl_platform.insufficiency.events import (
    ImportCompleted,
    InsufficiencyEventType,
    JudgmentImported,
    ResponseImported,
    ScopeRecorded,
)
from lhl_platform.insufficiency.imports import parse_judgments, parse_responses
from lhl_platform.insufficiency.items import ItemSet, about_item_set, dump_items, load_items
from lhl_platform.insufficiency.lineage import kept_items_at
from lhl_platform.insufficiency.records import ItemJudgment, ItemResponse
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.insufficiency.stages import IMPORTS_STREAM
from lhl_platform.insufficiency.store import ensure_item_set, ingest_item_set, load_item_set
from lhl_platform.jsonl import read_lines
from lhl_platform.suites.contract import Command
from lhl_platform.suites.gold_lineage import version_to_export


def _describe(items: ItemSet) -> str:
    return (f"item set {items.item_set_id} ({items.name}, {items.provenance}): {len(items.items)} items, "
            f"{len(items.bases())} base queries and {len(items.variants())} deficient variants")


def cmd_ingest(args: argparse.Namespace, home: Home) -> int:
    if not args.file and (args.name or args.description):
        print("lhl: --name and --description describe an ingested file; the shipped self-built set has its own",
              file=sys.stderr)
        return 2
    items = (load_items(Path(args.file), name=args.name, description=args.description) if args.file
             else self_built_items())
    done = ingest_item_set(home, items)
    print(f"{_describe(items)}; {done.new_items} new items recorded; now the active InsufficiencyBench set")
    print(f"note: {about_item_set(items.provenance, items.name, items.source, items.description)}")
    return 0


def _scopes(items: ItemSet, pairs: set[tuple[str, int]]) -> list[ScopeRecorded]:
    return [ScopeRecorded(item_set_id=items.item_set_id, model=m, run=r, items=[i.item_id for i in items.items],
                          source="import") for m, r in sorted(pairs)]


def _import(home: Home, path: Path, kind: str, item_set: str | None) -> tuple[ItemSet, int, int]:
    """Validate the whole file, then write it in one atomic segment: the (model, run) cells it covers, one event
    per line, and its completion. Returns the set, the lines and the events new to the log."""
    items = ensure_item_set(home, item_set)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    numbers = [n for n, _ in read_lines(path)]
    set_id = items.item_set_id
    records: Sequence[ItemResponse | ItemJudgment]
    imported: type[ResponseImported | JudgmentImported]
    if kind == "responses":
        records = parse_responses(path, items=items)
        event, imported = InsufficiencyEventType.RESPONSE_IMPORTED, ResponseImported
    else:
        records = parse_judgments(path, items=items)
        event, imported = InsufficiencyEventType.JUDGMENT_IMPORTED, JudgmentImported
    new = 0
    with home.events.writer(IMPORTS_STREAM, atomic=True) as writer:
        for scope in _scopes(items, {(r.model, r.run) for r in records}):
            writer.append(InsufficiencyEventType.SCOPE, f"{scope.model}/{scope.run}",
                          f"insufficiency.scope:{set_id}:{scope.model}:{scope.run}:import", scope)
        for line, record in zip(numbers, records, strict=True):
            fields = record.model_dump()
            new += writer.append(event, fields["item_id"], f"{event}:{sha}:{line}", imported(
                **fields, item_set_id=set_id, source_sha256=sha, line=line))
        writer.append(InsufficiencyEventType.IMPORT_COMPLETED, path.name,
                      f"insufficiency.import_completed:{kind}:{set_id}:{sha}", ImportCompleted(
                          kind=kind, item_set_id=set_id, source=str(path), sha256=sha, records=len(records)))
    return items, len(records), new


def cmd_import_responses(args: argparse.Namespace, home: Home) -> int:
    items, lines, new = _import(home, Path(args.file), "responses", args.item_set)
    print(f"imported {lines} responses into {items.item_set_id} ({items.name}, {items.provenance})"
          + ("" if new else ": already imported, nothing new")
          + "; judge them with `lhl insufficiency judge --models M`")
    return 0


def cmd_import_judgments(args: argparse.Namespace, home: Home) -> int:
    items, lines, new = _import(home, Path(args.file), "judgments", args.item_set)
    judges = ",".join(sorted({str(row.get("judge")) for _, row in read_lines(Path(args.file))}))
    print(f"imported {lines} judgments of {judges} into {items.item_set_id} ({items.name}, {items.provenance})"
          + ("" if new else ": already imported, nothing new")
          + f"; see `lhl report --suite insufficiency --judge {judges.split(',')[0]}`")
    return 0


def cmd_judge(args: argparse.Namespace, home: Home) -> int:
    """The judgments stage alone, for responses answered elsewhere (imported): the model needs no registration."""
    from lhl_platform.insufficiency.stages import JudgmentsConfig, insufficiency_judgments
    from lhl_platform.suites.contract import StageContext

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    runs = [int(r) for r in args.runs.split(",") if r.strip()]
    failed = 0
    for model in models:
        for run in runs:
            result = insufficiency_judgments(StageContext(
                home=home, model=model, run=run, config=JudgmentsConfig(item_set=args.item_set, judge=args.judge)))
            for check in result.checks:
                print(f"{model} run {run}: [{'PASS' if check.passed else 'FAIL'}] {check.name}: {check.summary}")
            failed += sum(not c.passed for c in result.checks if c.name == "every_response_judged")
    print("see `lhl report --suite insufficiency" + (f" --judge {args.judge}`" if args.judge else "`"))
    return 1 if failed else 0


def cmd_export(args: argparse.Namespace, home: Home) -> int:
    items = load_item_set(home, args.item_set)
    reviewed = version_to_export(home, "insufficiency", items.item_set_id, args.gold_version)
    chosen, which = items.items, "gold version 1 (as recorded, not reviewed)"
    if reviewed is not None:  # the variants a reviewer rejected left out, each element as the version has it
        kept, held = kept_items_at(home, items, reviewed.gold_version)
        chosen = tuple(i.model_copy(update={"reviewed": reviewed}) for i in kept)
        which = (f"gold version {reviewed.gold_version} (reviewed by {', '.join(reviewed.reviewers)}; "
                 f"{len(chosen)} of {held} items kept)")
    data = dump_items(chosen).encode()
    write_atomic(Path(args.file), data)
    print(f"wrote {_describe(items)}, {which}, to {args.file} ({len(data):,} bytes, sha256 "
          f"{hashlib.sha256(data).hexdigest()})")
    return 0


def _define_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the JSONL file to write (the published format, docs/formats.md section 2)")
    p.add_argument("--item-set", dest="item_set", help="the item set (id or name; default: the active one)")
    p.add_argument("--gold-version", dest="gold_version", type=int, metavar="N",
                   help="the gold version to write (`lhl review`; default: the newest); a reviewed version names "
                        "itself and its reviewers on every line")


def _define_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", required=True, help="comma-separated models whose responses to judge")
    p.add_argument("--runs", default="1", help="comma-separated runs (default 1)")
    p.add_argument("--judge", help="a registered judge (default: the offline cue judge)")
    p.add_argument("--item-set", dest="item_set", help="the item set (default: the active one)")


def _define_ingest(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="items in the published format, one a line; default: the shipped "
                                           "self-built set")
    p.add_argument("--name", help="a name for the item set (default: the file's stem)")
    p.add_argument("--description", help="what the set is (its origin, version, licence), shown in every report; "
                                         "default: none given")


def _define_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="JSON Lines, one record a line (docs/formats.md section 2)")
    p.add_argument("--item-set", dest="item_set", help="the item set the lines answer (id or name; default: the "
                                                       "active one, or the self-built set)")


COMMANDS = (
    Command(("ingest", "insufficiency"), "load InsufficiencyBench items (the published format) or, without a file, "
            "the shipped self-built set", _define_ingest, cmd_ingest),
    Command(("import", "responses"), "import InsufficiencyBench responses made elsewhere (model, run, item_id, "
            "response), validated whole and written atomically", _define_import, cmd_import_responses),
    Command(("insufficiency", "judge"), "judge recorded or imported InsufficiencyBench responses (the judgments "
            "stage alone: two judge calls per response, the judge validated first)", _define_judge, cmd_judge),
    Command(("insufficiency", "export"), "write an ingested InsufficiencyBench item set (its item ids, queries and "
            "gold) in the published format", _define_export, cmd_export),
    Command(("import", "judgments"), "import InsufficiencyBench judgments made elsewhere (judge outputs scored "
            "here), validated whole and written atomically", _define_import, cmd_import_judgments),
)
