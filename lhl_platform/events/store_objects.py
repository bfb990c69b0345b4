"""Immutable, content-addressed objects in S3-compatible object storage (the shared store's segments and corpora).

The client is boto3, the AWS SDK: it is maintained with the S3 API itself, reads the standard configuration
(credentials chain, `AWS_ENDPOINT_URL` for MinIO, Ceph, moto or Google Cloud Storage's S3-compatible endpoint,
`AWS_DEFAULT_REGION`, `AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE`) and retries throttling, 5xx replies, dropped
connections and timeouts on its own, synchronously, which suits a writer's commit thread. Objects are named by
their SHA-256, so a write never replaces different bytes and needs no conditional put (a retried or late PUT
writes the same bytes): the commit point is the catalog row (`store_catalog.py`), never the object.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

SEGMENTS = "segments"
CORPORA = "corpora"
WAREHOUSE = "warehouse"  # snapshots of a warehouse build (`lhl_platform/warehouse/snapshots.py`)
# How long one request may wait to connect and for a reply (seconds), and how many attempts botocore makes. A
# request past its timeout is abandoned and retried like a 5xx reply: botocore's standard retry mode backs off
# exponentially with jitter on 5xx, throttling, connection errors and timeouts. The standard AWS_MAX_ATTEMPTS and
# AWS_RETRY_MODE set the attempts and the mode; the timeouts, which botocore reads no variable for, are set here.
CONNECT_TIMEOUT_ENV = "LHL_S3_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV = "LHL_S3_READ_TIMEOUT"
# A refresh fetches the segments its home lacks this many at a time (the client keeps as many connections).
FETCHERS_ENV = "LHL_S3_FETCHERS"
DEFAULTS: dict[str, float | int | str] = {CONNECT_TIMEOUT_ENV: 5.0, READ_TIMEOUT_ENV: 30.0, "AWS_MAX_ATTEMPTS": 12,
                                          "AWS_RETRY_MODE": "standard", FETCHERS_ENV: 16}


@dataclass(frozen=True)
class ObjectStore:
    bucket: str
    prefix: str

    @staticmethod
    def parse(url: str) -> ObjectStore:
        parsed = urlparse(url)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise ValueError(f"LHL_EVENTS_URL must look like s3://bucket/prefix, got {url!r}")
        return ObjectStore(parsed.netloc, parsed.path.strip("/"))

    def key(self, kind: str, sha256: str, ext: str = "parquet") -> str:
        return "/".join(p for p in (self.prefix, kind, f"{sha256}.{ext}") if p)

    def where(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def put(self, key: str, data: bytes) -> None:
        _client().put_object(Bucket=self.bucket, Key=key, Body=data)

    def put_file(self, key: str, path: Path) -> None:
        """Upload a file (a large one in parts, by boto3's managed transfer; the object appears only once whole)."""
        _client().upload_file(str(path), self.bucket, key)

    def download(self, key: str, path: Path) -> bool:
        """Write the object's bytes to `path`; False when there is no such object."""
        from botocore.exceptions import ClientError

        try:
            _client().download_file(self.bucket, key, str(path))
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code")) in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    def get(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is no such object."""
        from botocore.exceptions import ReadTimeoutError, ResponseStreamingError

        client = _client()
        attempts = int(_settings()["AWS_MAX_ATTEMPTS"])
        for attempt in range(1, attempts + 1):
            try:
                reply = client.get_object(Bucket=self.bucket, Key=key)
            except client.exceptions.NoSuchKey:
                return None
            try:
                body: bytes = reply["Body"].read()
                return body
            except (ReadTimeoutError, ResponseStreamingError):
                # the reply stalled or broke after its headers: botocore retries only up to them
                reply["Body"].close()  # release the half-read connection before asking again
                if attempt == attempts:
                    raise
        raise AssertionError("unreachable")

    def listing(self, kind: str) -> Iterator[tuple[str, datetime]]:
        """Every object of one kind: (key, last modified)."""
        pages = _client().get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix="/".join(p for p in (self.prefix, kind) if p) + "/")
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"], item["LastModified"]

    def delete(self, key: str) -> None:
        _client().delete_object(Bucket=self.bucket, Key=key)


def fetchers() -> int:
    """How many segments a refresh fetches at a time (`LHL_S3_FETCHERS`)."""
    return int(_settings()[FETCHERS_ENV])


def _settings() -> dict[str, float | int | str]:
    """The timeouts and retries from the environment (DEFAULTS where unset); a value that is not one is refused
    in one line naming the variable."""
    found: dict[str, float | int | str] = {}
    for name, default in DEFAULTS.items():
        raw = os.environ.get(name, "").strip()
        if not raw:
            found[name] = default
            continue
        if isinstance(default, str):
            if raw not in ("standard", "adaptive", "legacy"):
                raise ValueError(f"{name} must be standard, adaptive or legacy, got {raw!r}")
            found[name] = raw
            continue
        value: float | int
        try:
            value = int(raw) if isinstance(default, int) else float(raw)
        except ValueError:
            value = 0
        if not math.isfinite(value) or value <= 0:  # nan passes `<= 0`; inf would disable the timeout
            what = "a positive whole number" if isinstance(default, int) else "a positive number of seconds"
            raise ValueError(f"{name} must be {what}, got {raw!r}")
        found[name] = value
    return found


_clients: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()


def _client() -> Any:
    """One client per process, endpoint and settings (boto3 clients are thread-safe, not fork-safe)."""
    settings = _settings()
    ident = (os.getpid(), os.environ.get("AWS_ENDPOINT_URL", ""), *settings.values())
    with _lock:
        client = _clients.get(ident)
        if client is None:
            import boto3
            from botocore.config import Config

            region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
            # total_max_attempts counts the first attempt, as AWS_MAX_ATTEMPTS does (max_attempts would not)
            retries = {"total_max_attempts": settings["AWS_MAX_ATTEMPTS"], "mode": settings["AWS_RETRY_MODE"]}
            config = Config(connect_timeout=settings[CONNECT_TIMEOUT_ENV], read_timeout=settings[READ_TIMEOUT_ENV],
                            retries=retries, max_pool_connections=settings[FETCHERS_ENV])
            client = boto3.session.Session().client("s3", region_name=region, config=config)
            _clients[ident] = client
        return client
