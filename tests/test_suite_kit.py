"""The suite kit (lhl_platform/suites/kit.py, item_sets.py): every suite's stage configs share one base, and the
batch switch falls back to LHL_AUDIT_BATCH the same way in every suite; the completeness check reads alike."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lhl_platform.insufficiency.stages import JudgmentsConfig, ResponsesConfig
from lhl_platform.scrub.stages import FindingsConfig, ScoresConfig
from lhl_platform.suites.kit import BatchConfig, ItemSetConfig, StageConfig, every_unit_answered


def test_every_suites_stage_configs_share_the_kits_base_and_fields() -> None:
    for config in (FindingsConfig, ScoresConfig, ResponsesConfig, JudgmentsConfig):
        assert issubclass(config, ItemSetConfig) and issubclass(config, StageConfig)
    with pytest.raises(ValidationError, match="extra"):
        ResponsesConfig.model_validate({"contracts": 2})  # an option no stage takes is an error, not ignored
    assert FindingsConfig(item_set="abc").item_set == "abc" and JudgmentsConfig().item_set is None


@pytest.mark.parametrize("config", [FindingsConfig, ResponsesConfig])
def test_the_batch_switch_falls_back_to_the_environment_in_every_suite(config: type[BatchConfig],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LHL_AUDIT_BATCH", raising=False)
    assert config().batched() is False
    monkeypatch.setenv("LHL_AUDIT_BATCH", "1")
    assert config().batched() is True and config(batch=False).batched() is False
    monkeypatch.setenv("LHL_AUDIT_BATCH", "0")
    assert config(batch=True).batched() is True


def test_the_completeness_check_counts_what_is_missing_and_names_the_first_failures() -> None:
    done = every_unit_answered("every_call_answered", "d", 4, 4, units="calls")
    assert done.passed and done.summary == "all 4 calls answered" and done.metadata == {"expected": 4, "answered": 4}
    failures = [(f"c{i}", "x" * 100) for i in range(7)]
    short = every_unit_answered("every_item_answered", "d", 9, 2, units="items", missing_as="without a response",
                                failures=failures, reason_chars=3)
    assert not short.passed
    assert short.summary == "7 of 9 items without a response: " + "; ".join(f"c{i} (xxx)" for i in range(5))


def test_an_item_set_stages_keys_are_the_kits_scheme_and_the_ones_the_streams_hold() -> None:
    from types import SimpleNamespace

    from lhl_platform.insufficiency.stages import AnswerStage
    from lhl_platform.scrub.stages import FindingsStage
    from lhl_platform.suites.kit import ItemSetCalls, unit_key

    # The keys recorded before the kit held the scheme, so a resumed partition still skips what it answered.
    contract, item = SimpleNamespace(contract_id="c7"), SimpleNamespace(item_id="q01a")
    assert FindingsStage("m", 2, None, "set1").key((contract, "ambiguity")) == "scrub.findings:set1:m:2:c7:ambiguity"
    assert AnswerStage("m", 3, None, "s9").key(item) == "insufficiency.response:s9:m:3:q01a"
    assert unit_key("k", "s", "m", 1, "a", "b") == "k:s:m:1:a:b"
    assert FindingsStage("m", 2, None, "set1").item_set == AnswerStage("m", 3, None, "set1").item_set == "set1"

    class Unnamed(ItemSetCalls[str]):  # a stage that does not name its units cannot be built
        kind = "toy.unnamed"

    with pytest.raises(TypeError, match="ids"):
        Unnamed("m", 1, None, "s")  # type: ignore[abstract]
