"""Append-only, hash-chained event log in Parquet segments."""

from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.model import Event, canonical_json, sha256_hex
from lhl_platform.events.verify import VerifyReport, verify_log

__all__ = ["Event", "EventLog", "StreamWriter", "VerifyReport", "canonical_json", "sha256_hex", "verify_log"]
