"""The suite's offline models, registered with the model factory through `Suite.offline_models`: the cue judge
(role `judge`) and the three calibration responders (role `extractor`, the role of any model under test)."""

from __future__ import annotations

from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import BuildContext, OfflineEntry
from lhl_platform.insufficiency import offline_judge, responders
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.providers.offline.adapter import OfflineModel

CUE_JUDGE = offline_judge.MODEL_ID  # the suite's default judge, registered under its model id
CUE_JUDGE_SPEC = ModelSpec(name=CUE_JUDGE, provider="offline", model_id=CUE_JUDGE, role="judge")


def _cue_judge(model_id: str, ctx: BuildContext) -> OfflineModel:
    return OfflineModel(model_id, offline_judge.VERSION, offline_judge.answer)


def _premature(model_id: str, ctx: BuildContext) -> OfflineModel:
    return OfflineModel(model_id, responders.PREMATURE_CLOSURE_VERSION, responders.premature_closure)


def _hedging(model_id: str, ctx: BuildContext) -> OfflineModel:
    return OfflineModel(model_id, responders.INDISCRIMINATE_HEDGING_VERSION, responders.indiscriminate_hedging)


def _gold_reader(model_id: str, ctx: BuildContext) -> OfflineModel:
    """Reads the gold of the home's active item set (the shipped self-built set without a home); its version
    names that set, so its answers are never replayed for another."""
    from lhl_platform.insufficiency.store import ensure_item_set

    items = ensure_item_set(ctx.home) if ctx.home is not None else self_built_items()
    return OfflineModel(model_id, responders.gold_reader_version(items), responders.gold_reader(items))


OFFLINE_MODELS: dict[str, OfflineEntry] = {
    CUE_JUDGE: OfflineEntry("judge", _cue_judge, "InsufficiencyBench cue judge: sub-tag and synonym cues, question "
                                                 "and conditional framing, assumption cues (validated offline)"),
    responders.PREMATURE_CLOSURE: OfflineEntry(
        "extractor", _premature, "InsufficiencyBench calibration: answers at once under presumed defaults, flags "
                                 "nothing (premature closure)"),
    responders.INDISCRIMINATE_HEDGING: OfflineEntry(
        "extractor", _hedging, "InsufficiencyBench calibration: asks the same eight intake questions whatever the "
                               "query (indiscriminate hedging)"),
    responders.GOLD_READER: OfflineEntry(
        "extractor", _gold_reader, "InsufficiencyBench calibration: reads the gold and asks for exactly the missing "
                                   "elements (an upper bound no real model can reach)", "gold_reader"),
}
