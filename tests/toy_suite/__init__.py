"""A toy suite defined entirely inside the tests: name the parties of each contract.

It exists to show that a suite lands in its own modules plus one registration (`register_suite(SUITE)`): its
event types, a solve stage through the call engine, a deterministic score stage, a SQL folder, a report section
and a paired comparison, and the platform gives it partitions, events, resume, usage and cost, marts, reports,
`lhl compare` and Dagster assets without any edit of its own.
"""
