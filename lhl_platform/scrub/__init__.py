"""ContractScrub (docs/method.md section 15; its files: docs/formats.md section 1): does a model find the drafting
defects of a contract before signature?

The suite's domain core, plain Python without Dagster:

- `categories`: the nine categories, their finding fields, titles, definitions and instructions;
- `document`: reading a contract (regions and sections, definitions, usages of defined terms,
  cross-references, parties); the documented definition parser that derives the `defined_terms` gold;
- `style`, `vocabulary`: the contract's own drafting conventions, number words and figures, legal vocabulary;
- `inject`: seeded candidate defects of the eight error categories, each with its gold tuple;
- `verify`: the verifier that keeps only defects that hold, and its report;
- `build`: `build_items`, a reproducible item set from a corpus;
- `items`: the item and gold types and the release JSONL format;
- `normalize`, `scoring`: normalisation and scoring exactly as docs/method.md section 15;
- `task`: the per-(contract, category) task, its strict output schemas and its messages;
- `offline`: the rule-based scrubber and the calibration tool;
- `imports`: `lhl import findings`, and a set's gold written in its format (`gold_findings`);
- `events`: the payloads the suite records (`EVENT_PAYLOADS`, registered with the log on import).

The suite as the platform runs it (`suite.SUITE`, registered in `lhl_platform.catalog`):

- `store`: item sets as events (built or ingested; the active one);
- `stages`: the items, findings (one call per contract and category through the call engine) and scores stages;
- `models`: the offline models the factory builds (`scrub-rules`, `scrub-calibrated:<profile>`);
- `report`: the report's rows (a model's coverage; overall figures and a rank only when complete), the recall
  figure, the checks, the compare metrics (refusing an incomplete model);
- `commands`: `lhl scrub build`, `lhl scrub export`, `lhl ingest contractscrub`, `lhl import findings`;
- `suite`: the `Suite` description; its SQL is `sql/scrub/`.
"""
