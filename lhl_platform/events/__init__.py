"""Append-only, hash-chained event log in Parquet segments (`log.py`), the payload kinds its owners register
(`kinds.py`) and its verification (`verify.py`). Import from the modules: a suite that only registers its event
kinds does not load the Parquet machinery."""
