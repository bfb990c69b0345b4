"""The typed six-role debate (Skeptic, Supporter, Re-extractor, Arbiter, Verifier, Judge) over a baseline
extraction, in plain typed Python:

- `config`: DebateConfig, GENERIC and `calibrate(profile)` (calibration as data);
- `roles`: the role tasks and their answer schemas; `prompts`: versioned prompts and challenge sets;
- `machine`: the routing state machine, the gates and one instance's debate (`debate_instance`);
- `offline`: OfflineDebateModel, deterministic offline roles; `evidence`: the text evidence they use;
- `events`: typed event payloads; `engine`: `run_debate_partition`, event-sourced and resumable;
- `calibration`: calibrations as events (the latest one per backbone is what a calibrated debate uses);
- `verdicts`: the evaluation judge on the debated outputs; `estimate`: the dry run's calls, tokens and cost.

This file imports nothing, so `debate.events` can be imported by the event log's payload registry.
"""
