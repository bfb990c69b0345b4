"""The loopback servers the shared-store benchmarks run on: moto's S3 server (one bucket) and a throwaway
PostgreSQL server (the tests' fixture), with a fresh store (database and bucket prefix) per call of `new_store`."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Iterator

import boto3
import psycopg
from moto.server import ThreadedMotoServer

from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV
from tests.test_publish import postgres  # the tests' throwaway PostgreSQL server

BUCKET = "lhl-bench"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def loopback_store() -> Iterator[Callable[[str], dict[str, str]]]:
    """Both servers running (the AWS variables set to reach S3); yields `new_store(label)`, which makes a fresh
    store and returns the environment that attaches it ({LHL_EVENTS_URL, LHL_CATALOG_URL})."""
    server_gen = postgres.__wrapped__()  # type: ignore[attr-defined]
    host_url, password = next(server_gen)
    port = _free_port()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's server logs every request otherwise
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    s3.start()
    try:
        os.environ.update({"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "bench",
                           "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"})
        boto3.client("s3").create_bucket(Bucket=BUCKET)
        server = host_url.replace("postgresql://lhl@", f"postgresql://lhl:{password}@").rsplit("/", 1)[0]

        def new_store(label: str) -> dict[str, str]:
            name = f"{label}_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(host_url, password=password, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {name}")
            return {EVENTS_URL_ENV: f"s3://{BUCKET}/{name}", CATALOG_URL_ENV: f"{server}/{name}"}

        yield new_store
    finally:
        s3.stop()
        next(server_gen, None)
