"""The one call engine: every model call of every stage and suite goes through it.

- `ledger.py`: recorded calls by request key (replay and resume), and the one way a call is made and recorded
  (`model.call` or `model.call_failed`, with whose figures it belongs to).
- `policy.py`: when a stage's events are committed (group commit and the durability window).
- `loop.py`: the unit loop: concurrency, the durability window, progress, units of work.
- `single.py`: a stage that makes one call per unit (extraction, judging, ...), interactive.
- `batch.py`: the same stages through a provider's batch API.
"""
