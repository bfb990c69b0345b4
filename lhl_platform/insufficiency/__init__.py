"""InsufficiencyBench (seed 003): does a legal assistant notice what a query leaves out?

The suite's domain core, free of Dagster and of the event log, one job per module:

- `items`: the item types and the loader of the published item format (`lhl ingest insufficiency`);
  `selfbuilt`: the self-built item set shipped in `data/`, built from its sentence-level source.
- `prompts`, `task`: the answering task and the two judge tasks, their strict output schemas and messages.
- `records`: the typed records the suite scores (responses, judgments), shared by imports, scoring and events.
- `scoring`, `intervals`, `agreement`: the seed's metrics, base-query bootstrap intervals, agreement of two judges.
- `cues`, `reading`, `offline_judge`: the offline cue-matching judge; `validation`: its hand-labelled
  validation set and `validate_judge`; `responders`: three offline calibration responders.
- `imports`: `lhl import responses` and `lhl import judgments`; `events`: the suite's event payloads.

This `__init__` imports nothing, so that the event log can import `events` without pulling in the providers.
"""
