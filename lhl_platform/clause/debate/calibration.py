"""Calibrations as events: a configuration derived from a backbone's measured profile is recorded once in the
backbone's calibration stream, and a calibrated debate uses the latest one.

Measuring the profile (typed profiles and RDI from the warehouse) happens above this package; here the
profile becomes a configuration (`config.calibrate`) and an event.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lhl_platform.clause.debate import events as ev
from lhl_platform.clause.debate.config import DebateConfig, calibrate, profile_from_rows
from lhl_platform.clause.debate.events import DebateCalibration, DebateEventType
from lhl_platform.events.log import EventLog


class CalibrationMissing(LookupError):
    pass


def calibration_stream(backbone: str) -> str:
    return f"debate-calibration.model={backbone}"


def calibration_from_rows(backbone: str, rows: Iterable[Mapping[str, Any]], *, overall_rdi: float | None,
                          corpus_id: str, judge: str, runs: Sequence[int], contracts: int,
                          instances: int) -> DebateCalibration:
    """The calibration for one backbone from its typed-profile rows (`category`, `far`, `frr`, `hal_tp`, `rdi`)
    and overall RDI, measured on `corpus_id` by `judge` over `runs`."""
    profile = profile_from_rows(rows, model=backbone, rdi=overall_rdi)
    config = calibrate(profile)
    return DebateCalibration(backbone=backbone, corpus_id=corpus_id, judge=judge, runs=tuple(runs),
                             contracts=contracts, instances=instances, profile=profile, config=config,
                             config_hash=config.hash)


def record_calibration(log: EventLog, calibration: DebateCalibration) -> bool:
    """Append the calibration to the backbone's stream; False when this exact calibration is already there."""
    basis = json.dumps([calibration.corpus_id, calibration.judge, list(calibration.runs), calibration.contracts,
                        calibration.instances])
    key = ev.calibration_key(calibration.backbone, calibration.config_hash,
                             hashlib.sha256(basis.encode()).hexdigest()[:16])
    return log.append(calibration_stream(calibration.backbone), DebateEventType.CALIBRATED, calibration.backbone,
                      key, calibration)


def latest_calibration(log: EventLog, backbone: str) -> DebateCalibration | None:
    stream = calibration_stream(backbone)
    if not (log.root / stream).exists():
        return None
    found = [DebateCalibration.model_validate_json(e.payload) for e in log.read(stream)
             if e.type == DebateEventType.CALIBRATED.value]
    return found[-1] if found else None


def calibrated_config(log: EventLog, backbone: str) -> DebateConfig:
    """The configuration of the backbone's latest calibration."""
    found = latest_calibration(log, backbone)
    if found is None:
        raise CalibrationMissing(f"{backbone} has no debate calibration yet; materialize debate_calibration for it "
                                 "(`lhl debate` does so for --config calibrated)")
    return found.config
