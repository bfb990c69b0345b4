"""Audit commands of `lhl` (models, audit, import, report, judge, ui, demo); filled in by the audit issue."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from lhl_platform.home import Home

Adder = Callable[[str, Callable[[argparse.Namespace, Home], int], str], Any]


def register(add: Adder) -> None:
    return None
