"""Versioned judge prompt carrying the five-criterion rubric (docs/method.md, section 4)."""

from __future__ import annotations

from lhl_platform.judging.task import JudgeTask, ScoreTask
from lhl_platform.providers.base import ChatModel, Message, ModelRequest

JUDGE_PROMPT_VERSION = "judge-v1"

_RUBRIC = """You check one clause extracted from a contract against the annotated source text.
Apply five criteria strictly:
1. Numeric precision: every amount, percentage and count must equal the source.
2. Temporal precision: every date and duration must equal the source.
3. Modality: shall/must/will must stay obligations; may/can must stay permissions.
4. Polarity: negations must be preserved.
5. Conditions: every exception, carve-out, condition and qualifier in the source must be kept, and none
   may be added.
Answer JSON only: {"verdict": "supported"|"contradicted", "mismatch_type": one of none, numeric,
temporal, obligation, scope, missing_condition, extra_condition, other, "reason": "<one sentence>"}.
Use missing_condition when the extraction drops a condition the source has, extra_condition when it
asserts one the source lacks, scope when it quotes a different or only partly matching passage, and
none exactly when the verdict is supported."""


def judge_messages(clause_type: str, truth: tuple[str, ...], extracted: str) -> tuple[Message, ...]:
    source = "\n".join(f"- {span}" for span in truth)
    return (Message(role="system", content=_RUBRIC),
            Message(role="user", content=f"Clause type: {clause_type}\nSource:\n{source}\nExtracted:\n{extracted}"))


def judge_request(model: ChatModel, clause_type: str, truth: tuple[str, ...], extracted: str) -> ModelRequest:
    """The one request a judge is asked with, wherever it judges (an audit, a debated output, a validation item,
    `lhl judge`). Run 0: a verdict does not depend on the audit round."""
    return ModelRequest(provider=model.provider, model_id=model.model_id, prompt_version=JUDGE_PROMPT_VERSION, run=0,
                        params=model.request_params(), messages=judge_messages(clause_type, truth, extracted),
                        task=JudgeTask(clause_type=clause_type, truth=truth, extracted=extracted))


SCORE_PROMPT_VERSION = "judge-score-v1"
_SCORE = """You compare a text with a clause of a contract (the source). Rate from 0 to 10 how faithfully the text
states the legal content of the source: 10 when it has the same legal force and content (obligations stay
obligations, permissions stay permissions, every amount, date, duration, party, condition and exception the
same), 0 when it is unrelated to the source or reverses its force. Wording, formatting and numbering do not matter.
Answer JSON only: {"rating": <number from 0 to 10>}."""


def score_request(model: ChatModel, clause_type: str, truth: tuple[str, ...], text: str, *,
                  sample: int = 0) -> ModelRequest:
    """The graded question LexFlip asks a judge about one (source, text) pair. Sample s is asked as run s (the
    first, run 0, as for verdicts): the same messages under another request key, so k samples are k calls, each
    recorded."""
    source = "\n".join(f"- {span}" for span in truth)
    messages = (Message(role="system", content=_SCORE),
                Message(role="user", content=f"Clause type: {clause_type}\nSource:\n{source}\nText:\n{text}"))
    return ModelRequest(provider=model.provider, model_id=model.model_id, prompt_version=SCORE_PROMPT_VERSION,
                        run=sample,
                        params=model.request_params(), messages=messages,
                        task=ScoreTask(clause_type=clause_type, truth=truth, text=text))
