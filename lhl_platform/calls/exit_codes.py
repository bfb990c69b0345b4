"""Exit codes of the calls' outcomes, importable without the call engine (the command tree's help quotes them)."""

LIMIT_EXIT_CODE = 3  # `lhl audit` and `lhl debate` stopped by their spending limit
