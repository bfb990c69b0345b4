"""`lhl models add|list|remove`: the model registry (each extractor is a `model` partition key)."""

from __future__ import annotations

import argparse
import json

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError


def cmd_models_add(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.domain.models import ModelSpec, Price
    from lhl_platform.jsonl import json_problem
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
    spec = ModelSpec.model_validate({
        "name": args.name, "provider": args.provider, "model_id": args.model_id, "base_url": args.base_url,
        "params": params, "role": args.role,
        "price": Price(input_per_mtok=args.input_price, output_per_mtok=args.output_price,
                       cached_input_per_mtok=args.cached_input_price, cache_write_per_mtok=args.cache_write_price,
                       batch_input_per_mtok=args.batch_input_price, batch_output_per_mtok=args.batch_output_price)})
    added = add_model(home, spec)
    if spec.role == "extractor":
        instance = instance_for(home)
        try:
            ensure_partitions(instance, [spec.name], [])
        finally:
            instance.dispose()
    print(f"{'registered' if added else 'already registered'}: {spec.name} ({spec.provider}:{spec.model_id})")
    return 0


def cmd_models_list(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import list_models

    models = list_models(home)
    if not models:
        print("no models registered; add one with `lhl models add NAME --provider offline --model-id lexical`")
    for m in models:
        extra = f" base_url={m.base_url}" if m.base_url else ""
        explicit = m.params.explicit()
        params = f" params={json.dumps(explicit)}" if explicit else ""
        p = m.price
        price = "" if p == type(p)() else (
            f" USD/Mtok in {p.input_per_mtok:g} cached {p.cached_input_per_mtok:g} write {p.cache_write_per_mtok:g}"
            f" out {p.output_per_mtok:g} batch {p.batch_input_per_mtok:g}/{p.batch_output_per_mtok:g}")
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
    add.add_argument("--input-price", type=float, default=0.0, help="USD per million input tokens")
    add.add_argument("--output-price", type=float, default=0.0, help="USD per million output tokens")
    add.add_argument("--cached-input-price", type=float,
                     help="USD per million input tokens read from the provider's cache (default: the input price)")
    add.add_argument("--cache-write-price", type=float,
                     help="USD per million input tokens written to the cache, as Anthropic charges (default: the "
                          "input price)")
    add.add_argument("--batch-input-price", type=float,
                     help="USD per million input tokens through the batch API (default: the input price)")
    add.add_argument("--batch-output-price", type=float,
                     help="USD per million output tokens through the batch API (default: the output price)")
    cli.add("list", cmd_models_list, "list registered models", "models")
    rm = cli.add("remove", cmd_models_remove, "unregister a model (its history is kept)", "models")
    rm.add_argument("name")
