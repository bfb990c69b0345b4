"""The toy suite's event types, registered when this module is imported."""

from __future__ import annotations

from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload


class ToyScope(Payload):
    """The contracts a (model, run) partition was asked to name the parties of."""

    model: str
    run: int
    item_set: str
    items: list[str]


class PartiesNamed(Payload):
    """The parties a model named in one contract."""

    model: str
    run: int
    contract_id: str
    parties: list[str]
    request_key: str


class PartiesScored(Payload):
    """How many of the named parties the contract's annotated Parties spans hold."""

    model: str
    run: int
    contract_id: str
    named: int
    matched: int


register_events({"toy.scope": ToyScope, "toy.named": PartiesNamed, "toy.scored": PartiesScored}, owner=__name__)
