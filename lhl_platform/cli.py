"""`lhl`: the command-line entry point (SPEC section 7).

Every command takes `--home DIR` (env `LHL_HOME`, default `./.lhl`). Exit code 0 on success; on
failure a one-line reason on stderr and a non-zero code. Heavy imports happen inside commands so
that `lhl --help` and `lhl report` start quickly.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from lhl_platform.home import Home


class CliError(Exception):
    """A failure to report as one line on stderr."""


def cmd_ingest(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.store import save_corpus

    corpus = load_master_layout(args.path)
    corpus_id = save_corpus(home, corpus, source=str(args.path))
    print(f"contracts: {len(corpus.contracts)}")
    print(f"instances: {len(corpus.oracle)}")
    print(f"present:   {corpus.n_present}")
    print(f"corpus id: {corpus_id} (stored in {home.root})")
    return 0


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.events.verify import verify_log

    report = verify_log(home.events)
    if not report.ok:
        raise CliError(f"event log altered: {report.problem}")
    print(f"event log intact: {report.streams} streams, {report.segments} segments, {report.events} events")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lhl", description="LegalHalluLens: typed hallucination audits of contract clause extraction.")
    parser.add_argument("--home", help="home folder (env LHL_HOME, default ./.lhl)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func: Callable[[argparse.Namespace, Home], int], help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--home", default=argparse.SUPPRESS, help="home folder (env LHL_HOME)")
        p.set_defaults(func=func)
        return p

    ingest = sub.add_parser("ingest", help="load a corpus into the home")
    ingest_sub = ingest.add_subparsers(dest="kind", required=True, metavar="KIND")
    cuad = ingest_sub.add_parser("cuad", help="load a CUAD v1 folder (master_clauses.csv + full_contract_txt/)")
    cuad.add_argument("path", help="the CUAD v1 folder")
    cuad.add_argument("--home", default=argparse.SUPPRESS, help="home folder (env LHL_HOME)")
    cuad.set_defaults(func=cmd_ingest)

    add("verify", cmd_verify, "check the event log's hash chain; non-zero exit when anything was altered")
    from lhl_platform import cli_audit

    cli_audit.register(add)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    home = Home.resolve(getattr(args, "home", None))
    try:
        code: int = args.func(args, home)
        return code
    except KeyboardInterrupt:
        print("lhl: interrupted", file=sys.stderr)
        return 130
    except (CliError, ValueError, OSError, RuntimeError, LookupError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"lhl: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
