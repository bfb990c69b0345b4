"""API keys: read from the environment at the moment a model is built, never stored anywhere else."""

from __future__ import annotations

import os

from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.redaction import register_secret


class CredentialError(ValueError):
    """A model needs a key that the environment does not hold."""


def api_key(spec: ModelSpec, default_env: tuple[str, ...], required: bool = True) -> str | None:
    """The key from the environment only: `params.api_key_env` names the variable, else the provider's."""
    names = (spec.params.api_key_env,) if spec.params.api_key_env else default_env
    for name in names:
        value = os.environ.get(name)
        if value:
            register_secret(value)  # from now on, an echo of it is redacted from everything written
            return value
    if required:
        raise CredentialError(f"model {spec.name!r} needs an API key: set {' or '.join(names)} in the environment")
    return None
