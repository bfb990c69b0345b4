"""One library of typed legal edits: every way the platform rewrites a legal text on purpose, each named once with
the answer it implies.

- `force.py`: minimal edits that change legal force while keeping almost every token, or keep it while changing
  the surface; with the verdict and mismatch type a judge should give. The judge-validation suite (LexFlip)
  makes its items with them.
- `errors.py`: the typed errors of an extractor (drop a carve-out, add a stock condition, change an amount, shift a
  date, flip a modal verb, quote the wrong passage); the simulated extractors apply them at declared rates.

Each edit takes a text and a seeded random generator and returns the edited text, or None where it does not apply.
"""
