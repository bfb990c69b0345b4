"""LegalHalluLens Platform: typed hallucination audits of contract clause extraction.

This package is the domain layer; it never imports Dagster (see docs/architecture.md).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("legalhallulens-platform")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+source"
