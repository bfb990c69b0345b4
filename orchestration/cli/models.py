"""`lhl models add|list|prices|remove`: the model registry (each extractor is a `model` partition key)."""

from __future__ import annotations

import argparse
import json

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError

RATE_FLAGS = {"input_price": "input_per_mtok", "output_price": "output_per_mtok",
              "cached_input_price": "cached_input_per_mtok", "cache_write_price": "cache_write_per_mtok",
              "batch_input_price": "batch_input_per_mtok", "batch_output_price": "batch_output_per_mtok"}


def cmd_models_add(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.jsonl import json_problem
    from lhl_platform.providers.prices import registered_price
    from lhl_platform.registry import add_model
    from orchestration.launch import ensure_partitions, instance_for

    try:
        params = json.loads(args.params) if args.params else {}
    except json.JSONDecodeError as exc:
        raise CliError(f"--params is not valid JSON: {json_problem(exc)}") from None
    if not isinstance(params, dict):
        raise CliError("--params must be a JSON object")
    if args.monitor:
        params["monitor"] = True
    # The rates given override the price table's, rate by rate; a model registered without rates is costed at the
    # table's (recorded with the registration: the table's version and model id), or has an unknown cost.
    given = {rate: getattr(args, flag) for flag, rate in RATE_FLAGS.items() if getattr(args, flag) is not None}
    price, origin = registered_price(args.provider, args.model_id, given)
    spec = ModelSpec.model_validate({
        "name": args.name, "provider": args.provider, "model_id": args.model_id, "base_url": args.base_url,
        "params": params, "role": args.role, "price": price, "price_origin": origin})
    added = add_model(home, spec)
    if spec.role == "extractor":
        instance = instance_for(home)
        try:
            ensure_partitions(instance, [spec.name], [])
        finally:
            instance.dispose()
    print(f"{'registered' if added else 'already registered'}: {spec.name} ({spec.provider}:{spec.model_id})")
    if origin.source == "unknown":
        import sys

        print(f"lhl: warning: {spec.name}'s cost is {origin_words(spec)}; its cost figures say unknown and a "
              "spending limit (--max-cost) refuses it (give --input-price and --output-price)", file=sys.stderr)
    return 0


def origin_words(spec: object) -> str:
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.providers.prices import pricing_for

    assert isinstance(spec, ModelSpec)
    return pricing_for(spec).describe()


def cmd_models_prices(args: argparse.Namespace, home: Home) -> int:
    """The rates in force for a registered model today, interactive and batch, and where each came from."""
    from datetime import UTC, datetime

    from lhl_platform.domain.models import PRICE_RATES
    from lhl_platform.providers.prices import pricing_for, table_version
    from lhl_platform.registry import get_model

    spec = get_model(home, args.name)
    pricing = pricing_for(spec)
    origin = pricing.origin
    today = datetime.now(UTC).date()
    print(f"{spec.name} ({spec.provider}:{spec.model_id}): {pricing.describe()}")
    if not pricing.known:
        print(f"cost: unknown (null in every cost figure); the price table is genai-prices {table_version()}; "
              f"give rates with `lhl models add {spec.name} ... --input-price P --output-price P` (remove it first)")
        return 0
    interactive, batch = pricing.rates(False, today), pricing.rates(True, today)
    assert interactive is not None and batch is not None
    table = f"{origin.table} {origin.table_version}" if origin.table else ""
    names = {"input_per_mtok": ("input", interactive.input), "output_per_mtok": ("output", interactive.output),
             "cached_input_per_mtok": ("cached input", interactive.cached_input),
             "cache_write_per_mtok": ("cache write", interactive.cache_write),
             "batch_input_per_mtok": ("batch input", batch.input),
             "batch_output_per_mtok": ("batch output", batch.output)}
    print(f"rates in force on {today.isoformat()}, USD per million tokens:")
    for rate in PRICE_RATES:
        label, value = names[rate]
        if origin.source == "offline":
            where = "offline: makes no paid call"
        elif origin.source == "registration" or rate in origin.given:
            where = "given at registration"
        else:
            where = f"{table} ({origin.table_provider}/{origin.table_model})"
        tiers = "".join(f"; {r:g} above {start:,} input tokens" for start, r in value.tiers)
        print(f"  {label:<13} {value.base:>10g}{tiers}  {where}")
    if origin.table:
        print(f"table rates are the ones in force on the day of each call (the table keeps their history); rates given "
              f"at `lhl models add` override them; recorded with the registration: {table}")
    return 0


def cmd_models_list(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.providers.prices import pricing_for
    from lhl_platform.registry import list_models

    models = list_models(home)
    if not models:
        print("no models registered; add one with `lhl models add NAME --provider offline --model-id lexical`")
    for m in models:
        extra = f" base_url={m.base_url}" if m.base_url else ""
        explicit = m.params.explicit()
        params = f" params={json.dumps(explicit)}" if explicit else ""
        p = m.price
        source = pricing_for(m).origin.source
        price = " cost unknown" if source == "unknown" else "" if source == "offline" else (
            f" USD/Mtok in {p.input_per_mtok:g} cached {p.cached_input_per_mtok:g} write {p.cache_write_per_mtok:g}"
            f" out {p.output_per_mtok:g} batch {p.batch_input_per_mtok:g}/{p.batch_output_per_mtok:g} ({source})")
        print(f"{m.name:<24} {m.role:<9} {m.provider}:{m.model_id}{extra}{params}{price}")
    return 0


def cmd_models_remove(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import remove_model

    remove_model(home, args.name)
    print(f"removed {args.name} from the registry (its audit history stays in the event log)")
    return 0


def register(cli: Cli) -> None:
    cli.group("models", "the model registry (each model is a `model` partition key)")
    add = cli.add("add", cmd_models_add, "register a model; adds its key to the `model` partitions", "models")
    add.add_argument("name", help="partition key: letters, digits, . _ : - (max 64)")
    add.add_argument("--provider", required=True, help="offline, openai, anthropic or gemini")
    add.add_argument("--model-id", required=True, help="e.g. lexical, simulated:omitter, rubric, overlap, gpt-5.2")
    add.add_argument("--base-url", help="OpenAI-compatible server (vLLM, Ollama, ...)")
    add.add_argument("--role", choices=["extractor", "judge"], default="extractor")
    add.add_argument("--params", help="JSON object of model parameters (temperature, concurrency, ...)")
    add.add_argument("--monitor", action="store_true", help="include in recurring post-deployment audits")
    add.add_argument("--input-price", type=float, help="USD per million input tokens (default: the price table's "
                                                       "rate for the provider and model id, on the day of each call)")
    add.add_argument("--output-price", type=float, help="USD per million output tokens (default: the price table's)")
    add.add_argument("--cached-input-price", type=float,
                     help="USD per million input tokens read from the provider's cache (default: the price table's, "
                          "else the input price)")
    add.add_argument("--cache-write-price", type=float,
                     help="USD per million input tokens written to the cache, as Anthropic charges (default: the "
                          "price table's, else the input price)")
    add.add_argument("--batch-input-price", type=float,
                     help="USD per million input tokens through the batch API (default: the price table's, else "
                          "the input price)")
    add.add_argument("--batch-output-price", type=float,
                     help="USD per million output tokens through the batch API (default: the price table's, else "
                          "the output price)")
    cli.add("list", cmd_models_list, "list registered models", "models")
    pr = cli.add("prices", cmd_models_prices, "the rates in force for a model and where each came from", "models")
    pr.add_argument("name")
    rm = cli.add("remove", cmd_models_remove, "unregister a model (its history is kept)", "models")
    rm.add_argument("name")
