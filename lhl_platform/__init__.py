"""LegalHalluLens Platform: typed hallucination audits of contract clause extraction.

This package is the domain layer; it never imports Dagster (see docs/architecture.md). `__version__` is read on
demand (importing `importlib.metadata` costs every command a noticeable share of its start-up).
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("legalhallulens-platform")
    except PackageNotFoundError:  # running from a source tree without install
        value = "0.0.0+source"
    globals()["__version__"] = value
    return value
