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
