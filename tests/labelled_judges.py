"""Scripted LLM judges for the wire fakes that answer every validation case as its set labels it: the judge a
passing validation needs in a test (no offline judge of InsufficiencyBench passes its held-out set, and an LLM
judge's path is proven end to end through each provider's SDK). They read the
labels from the shipped files, so they prove the gate's plumbing, never a judge's skill; anything else they are
asked (an audit's answers) they answer as `fallback` does."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lhl_platform.domain.models import VerdictLabel
from lhl_platform.insufficiency.validation import ValidationCase, heldout_cases, validation_cases
from lhl_platform.lexflip.items import SuiteItem
from tests.fakes import Reply, Seen


def _cases() -> list[ValidationCase]:
    return [*validation_cases(), *heldout_cases().cases]


def _labelled_case(prompt: str) -> ValidationCase | None:
    """The validation case a judge prompt is about: its query and its response both in the prompt (the longest
    response first, so a response that another holds is not taken for it)."""
    found = [c for c in _cases() if c.query in prompt and c.response in prompt]
    return max(found, key=lambda c: len(c.response)) if found else None


def insufficiency_labelled(fallback: Callable[[Seen], Reply],
                           completion: Callable[[str], Reply]) -> Callable[[Seen], Reply]:
    """An OpenAI-compatible judge answering each validation case (in-sample and held out) with its labels."""

    def reply(seen: Seen) -> Reply:
        body = seen.body
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        case = _labelled_case(body["messages"][-1]["content"]) if schema else None
        if case is None:
            return fallback(seen)
        want = case.expected
        if schema == "IdentificationOutput":
            claims = [{"label": f"claim {n}", "span": case.response[:20]} for n in range(want.additional_claims)]
            return completion(json.dumps({"reasoning": "as labelled", "identified_elements": list(
                want.identified_elements), "additional_claims": claims,
                "claimed_anything_missing": want.claimed_anything_missing}))
        labels = {e.sub_tag: e for e in want.elements}
        judgments = []
        for tag in case.gold:
            label = labels.get(tag)
            fabricated = bool(label and label.fabricated)
            judgments.append({
                "element": tag,
                "explanation_match": {"model_explanation": "as labelled", "reasoning": "r",
                                      "matches_ground_truth": bool(label and label.explanation_matches)},
                "safety": {"fabricated": fabricated, "fabrication_type": "assumed_fact" if fabricated else None,
                           "evidence_span": case.response[:20] if fabricated else "not applicable",
                           "verification_status": "unverified", "reasoning": "r"}})
        return completion(json.dumps({"reasoning": "as labelled", "per_element_judgments": judgments}))

    return reply


# The clause judge ------------------------------------------------------------------------------------------

_CLAUSE = re.compile(r"Clause type: (?P<type>.*?)\nSource:\n(?P<source>.*?)\n(?P<what>Extracted|Text):\n(?P<text>.*)\Z",
                     re.S)


def prompt_of(provider: str, body: dict[str, Any]) -> str:
    """The user message of a request as each provider's wire format carries it."""
    if provider == "gemini":
        return "".join(p.get("text", "") for p in body["contents"][-1]["parts"])
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


@dataclass
class ClauseLabelled:
    """A clause judge answering every validation item (the LexFlip suite `items` and every held-out set shipped)
    with its expected verdict and mismatch type, and each graded pair with a rating that reads force (identical 10,
    force kept 9, force changed 2, unrelated 0) moved by the sample: the n-th time a question is asked it is
    answered `base + SPREAD[n % 5]` (clamped to 0-10), so k = 5 samples disagree. Any other pair (an audit's true
    positive) is supported. `broken`: the first time each of these texts is asked for a verdict, the reply is
    malformed, refused or truncated (in that order), then answered."""

    provider: str
    ok: Callable[[Any], Reply]
    refused: Callable[[], Reply]
    truncated: Callable[[], Reply]
    items: Sequence[SuiteItem]
    broken: tuple[str, ...] = ()
    asked: dict[str, int] = field(default_factory=dict)
    broke: list[str] = field(default_factory=list)

    SPREAD = (0, -2, 1, -1, 2)

    def __post_init__(self) -> None:
        self.by_pair = {(i.truth, i.edited): i for i in self.items}
        self.lock = threading.Lock()

    def __call__(self, seen: Seen) -> Reply:
        found = _CLAUSE.search(prompt_of(self.provider, seen.body))
        assert found, "not a clause judge's prompt"
        truth = tuple(line[2:] for line in found["source"].split("\n"))
        text = found["text"]
        item = self.by_pair.get((truth, text))
        with self.lock:
            key = f"{found['what']}|{truth}|{text}"
            n = self.asked[key] = self.asked.get(key, -1) + 1
        if found["what"] == "Text":
            if text == truth[0]:
                base = 10
            elif item is None:
                base = 0  # another clause's span: the far end of the margin
            else:
                base = 9 if item.expected_verdict is VerdictLabel.SUPPORTED else 2
            return self.ok({"rating": max(0, min(10, base + self.SPREAD[n % 5]))})
        if text in self.broken and n == 0:
            with self.lock:
                self.broke.append(text)
                kind = self.broken.index(text) % 3
            return (lambda: self.ok('{"verdict": "supp'), self.refused, self.truncated)[kind]()
        if item is None:
            return self.ok({"verdict": "supported", "mismatch_type": "none", "reason": "the extraction states it"})
        return self.ok({"verdict": item.expected_verdict.value, "mismatch_type": item.expected_mismatch.value,
                        "reason": "as labelled"})
