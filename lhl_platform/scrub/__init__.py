"""ContractScrub (SUITES.md section 1): does a model find the drafting defects of a contract before signature?

The suite's domain core, plain Python without Dagster:

- `categories`: the nine categories, their finding fields, titles, definitions and instructions;
- `document`: reading a contract (regions and sections, definitions, usages of defined terms,
  cross-references, parties); the documented definition parser that derives the `defined_terms` gold;
- `style`, `vocabulary`: the contract's own drafting conventions, number words and figures, legal vocabulary;
- `inject`: seeded candidate defects of the eight error categories, each with its gold tuple;
- `verify`: the verifier that keeps only defects that hold, and its report;
- `build`: `build_items`, a reproducible item set from a corpus;
- `items`: the item and gold types and the release JSONL format;
- `normalize`, `scoring`: normalisation and scoring exactly as SUITES.md section 1;
- `task`: the per-(contract, category) task, its strict output schemas and its messages;
- `offline`: the rule-based scrubber and the calibration tool;
- `imports`: `lhl import findings`;
- `events`: the payloads the suite records (`EVENT_PAYLOADS`).
"""
