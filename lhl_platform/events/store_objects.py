"""Immutable, content-addressed objects in S3-compatible object storage (the shared store's segments and corpora).

The client is boto3, the AWS SDK: it is maintained with the S3 API itself, reads the standard configuration
(credentials chain, `AWS_ENDPOINT_URL` for MinIO, Ceph, moto or Google Cloud Storage's S3-compatible endpoint,
`AWS_DEFAULT_REGION`) and retries throttling, 5xx replies and dropped connections on its own, synchronously,
which suits a writer's commit thread. Objects are named by their SHA-256, so a write never replaces different
bytes and needs no conditional put: the commit point is the catalog row (`store_catalog.py`), never the object.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

SEGMENTS = "segments"
CORPORA = "corpora"
# botocore's standard retry mode: exponential backoff with jitter on 5xx, throttling and connection errors.
_RETRIES = {"max_attempts": 12, "mode": "standard"}


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

    def key(self, kind: str, sha256: str) -> str:
        return "/".join(p for p in (self.prefix, kind, f"{sha256}.parquet") if p)

    def where(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def put(self, key: str, data: bytes) -> None:
        _client().put_object(Bucket=self.bucket, Key=key, Body=data)

    def get(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is no such object."""
        client = _client()
        try:
            reply = client.get_object(Bucket=self.bucket, Key=key)
        except client.exceptions.NoSuchKey:
            return None
        body: bytes = reply["Body"].read()
        return body

    def listing(self, kind: str) -> Iterator[tuple[str, datetime]]:
        """Every object of one kind: (key, last modified)."""
        pages = _client().get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix="/".join(p for p in (self.prefix, kind) if p) + "/")
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"], item["LastModified"]

    def delete(self, key: str) -> None:
        _client().delete_object(Bucket=self.bucket, Key=key)


_clients: dict[tuple[int, str], Any] = {}
_lock = threading.Lock()


def _client() -> Any:
    """One client per process and endpoint (boto3 clients are thread-safe, not fork-safe)."""
    ident = (os.getpid(), os.environ.get("AWS_ENDPOINT_URL", ""))
    with _lock:
        client = _clients.get(ident)
        if client is None:
            import boto3
            from botocore.config import Config

            region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
            client = boto3.session.Session().client(
                "s3", region_name=region,
                config=Config(retries=_RETRIES, connect_timeout=5, read_timeout=30))
            _clients[ident] = client
        return client
