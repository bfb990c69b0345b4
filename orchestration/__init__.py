"""Wires the domain into Dagster: the Definitions object, and launching runs for the CLI."""
