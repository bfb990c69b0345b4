"""`lhl debate --dry-run`: the calls, tokens and cost a debate would spend, before spending anything.

Every instance (contract x clause type) is debated. A debate settled in round 1 makes four calls (Skeptic,
Supporter, Verifier, Judge); a second round adds two, a re-extraction or an Arbiter one each, so a debate
makes between `MIN_CALLS` and `MAX_CALLS`. The expected figure assumes `SECOND_ROUND_SHARE` of debates go
to a second round and `EXTRA_ROLE_SHARE` call the Re-extractor or the Arbiter (the paper's backbone settled
87.9% in round 1). Each call's input is the contract plus the role's instructions, measured at about
four characters per token, plus `STATE_TOKENS` for the debate so far; output is `OUTPUT_TOKENS` per call.
Prompt caching is ignored (the contract comes first in every role's messages, so cached input would make it
cheaper). Judge calls assume every present clause ends as a true positive whose verdict must be asked (an
upper bound: unchanged extractions take over the baseline's verdict). Only instances with a baseline (the
backbone's extraction of that run) are debated and counted; instances already decided under the same
configuration are not counted either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

from lhl_platform.clause.debate import events as ev
from lhl_platform.clause.debate.config import DebateConfig
from lhl_platform.clause.debate.engine import debate_stream
from lhl_platform.clause.debate.prompts import definition_text, role_messages
from lhl_platform.clause.debate.roles import VerifierTask
from lhl_platform.domain.models import Contract, ModelSpec, OracleRow
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, category_of
from lhl_platform.events.log import EventLog
from lhl_platform.judging.prompts import judge_messages
from lhl_platform.progress import cost_usd
from lhl_platform.providers.base import approx_tokens

MIN_CALLS = 4
MAX_CALLS = 8
SECOND_ROUND_SHARE = 0.12
EXTRA_ROLE_SHARE = 0.08
EXPECTED_CALLS = MIN_CALLS + 2 * SECOND_ROUND_SHARE + EXTRA_ROLE_SHARE
STATE_TOKENS = 250
OUTPUT_TOKENS = 180
JUDGE_OUTPUT_TOKENS = 80


class DebateEstimate(BaseModel):
    backbone: str
    run: int
    instances: int  # instances of the subset with a baseline: what the debate decides
    without_baseline: int  # instances of the subset the backbone has no extraction of in this run: not debated
    contracts_without_baseline: int  # contracts of the subset without any baseline in this run
    already_decided: int
    calls: int
    max_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    max_cost_usd: float
    judge_calls: int
    judge_input_tokens: int
    judge_output_tokens: int
    judge_cost_usd: float


def _prompt_tokens(contract: Contract, clause: str) -> int:
    task = VerifierTask(contract_id=contract.contract_id, contract_text=contract.text, clause_type=clause,
                        category=category_of(clause), definition=definition_text(clause), quotes_under_review=())
    return approx_tokens("".join(m.content for m in role_messages(task))) + STATE_TOKENS


def estimate_debate(log: EventLog, spec: ModelSpec, runs: Sequence[int], contracts: Sequence[Contract],
                    oracle: Iterable[OracleRow], judge: ModelSpec, config: DebateConfig | None,
                    baselines: Mapping[int, set[tuple[str, str]]]) -> list[DebateEstimate]:
    """One estimate per run. `config` is the configuration that would be debated (None when a calibration
    is still to be made: then nothing counts as decided); `baselines` holds, per run, the (contract, clause type)
    instances the backbone has an extraction of, the only ones a debate decides."""
    spans = {(r.contract_id, r.clause_type): r.spans for r in oracle if r.present}
    every = {(c.contract_id, t): c for c in contracts for t in CLAUSE_TYPES}
    tokens: dict[tuple[str, str], int] = {}
    judge_in = {(c.contract_id, t): approx_tokens("".join(m.content for m in judge_messages(t, s, " ".join(s))))
                for c in contracts for t in CLAUSE_TYPES if (s := spans.get((c.contract_id, t)))}
    out: list[DebateEstimate] = []
    for run in runs:
        with_baseline = baselines.get(run, set())
        per_instance = {i: tokens.setdefault(i, _prompt_tokens(every[i], i[1])) for i in every if i in with_baseline}
        covered = {cid for cid, _ in per_instance}
        decided: set[tuple[str, str]] = set()
        if config is not None:
            stream = debate_stream(spec.name, run, config)
            if (log.root / stream).exists():
                keys = log.keys(stream)
                decided = {i for i in per_instance if ev.outcome_key(ev.InstanceRef(
                    backbone=spec.name, run=run, config_hash=config.hash, contract_id=i[0], clause_type=i[1])) in keys}
        todo = [i for i in per_instance if i not in decided]
        prompt = sum(per_instance[i] for i in todo)
        calls, max_calls = round(EXPECTED_CALLS * len(todo)), MAX_CALLS * len(todo)
        input_tokens = round(EXPECTED_CALLS * prompt)
        output_tokens = calls * OUTPUT_TOKENS
        judge_todo = [i for i in todo if i in judge_in]
        j_in = sum(judge_in[i] for i in judge_todo)
        j_out = len(judge_todo) * JUDGE_OUTPUT_TOKENS
        out.append(DebateEstimate(
            backbone=spec.name, run=run, instances=len(per_instance), without_baseline=len(every) - len(per_instance),
            contracts_without_baseline=len({c.contract_id for c in contracts} - covered),
            already_decided=len(decided), calls=calls,
            max_calls=max_calls, input_tokens=input_tokens, output_tokens=output_tokens,
            cost_usd=cost_usd(spec.price, input_tokens, output_tokens),
            max_cost_usd=cost_usd(spec.price, MAX_CALLS * prompt, max_calls * OUTPUT_TOKENS),
            judge_calls=len(judge_todo), judge_input_tokens=j_in, judge_output_tokens=j_out,
            judge_cost_usd=cost_usd(judge.price, j_in, j_out)))
    return out
