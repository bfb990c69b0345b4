"""The detection rates (recall, precision, F1, F2) as Python functions read from the SQL macros that define them
(`sql/common/macros.sql`), so the marts and the Python scoring compute each from one text.

A macro's body is a small expression: arithmetic, comparisons, `case when C then A else B end`, `nullif` and
calls of the other macros, with SQL's nulls (None in, None out; a division by zero is None) and casts ignored
(`/` is true division, as `::double` makes it in SQL). Anything else in a body it reads is an error at import.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

MACROS = Path(__file__).resolve().parents[2] / "sql" / "common" / "macros.sql"
RATES = ("ratio", "recall_rate", "precision_rate", "f1_score", "f2_score")

_DEFINITION = re.compile(r"create or replace macro (\w+)\(([^)]*)\) as\s+(.*?);", re.S)
_CASE = re.compile(r"case when (.+?) then (.+?) else (.+?) end", re.S)
_OPS: dict[type, Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub,
                                               ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {ast.Eq: operator.eq, ast.NotEq: operator.ne,
                                                    ast.Lt: operator.lt, ast.Gt: operator.gt}


def _python(body: str) -> ast.expr:
    text = re.sub(r"::\w+", "", " ".join(body.split()))
    text = _CASE.sub(lambda m: f"_case({m[1]}, {m[2]}, {m[3]})", text)
    text = re.sub(r"(?<![<>!=])=(?!=)", "==", text)
    return ast.parse(text, mode="eval").body


def _nullif(value: Any, other: Any) -> Any:
    return None if value == other else value


class _Macro:
    def __init__(self, name: str, params: tuple[str, ...], body: ast.expr, table: dict[str, _Macro]) -> None:
        self.name, self.params, self.body, self.table = name, params, body, table

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments ({', '.join(self.params)})")
        return self._eval(self.body, dict(zip(self.params, args, strict=True)))

    def _eval(self, node: ast.expr, env: dict[str, Any]) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = self._eval(node.left, env), self._eval(node.right, env)
            if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
                return None
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            left, right = self._eval(node.left, env), self._eval(node.comparators[0], env)
            return None if left is None or right is None else _COMPARE[type(node.ops[0])](left, right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name == "_case":  # `case when C then A else B end`: a null condition is not true
                condition, then, otherwise = node.args
                return self._eval(then if self._eval(condition, env) else otherwise, env)
            args = [self._eval(a, env) for a in node.args]
            if name == "nullif":
                return _nullif(*args)
            return self.table[name](*args)
        raise ValueError(f"macro {self.name}: {ast.unparse(node)!r} is not an expression rates.py evaluates")


def _read(text: str) -> dict[str, _Macro]:
    table: dict[str, _Macro] = {}
    for name, params, body in _DEFINITION.findall(text):
        if name in RATES:
            table[name] = _Macro(name, tuple(p.strip() for p in params.split(",")), _python(body), table)
    missing = set(RATES) - set(table)
    if missing:
        raise LookupError(f"{MACROS} defines no macro {', '.join(sorted(missing))}")
    return table


_TABLE = _read(MACROS.read_text())


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator; None with a zero or unknown denominator (`ratio`)."""
    value: float | None = _TABLE["ratio"](numerator, denominator)
    return value


def recall_rate(tp: int, fn: int) -> float | None:
    """TP / (TP + FN) (`recall_rate`)."""
    value: float | None = _TABLE["recall_rate"](tp, fn)
    return value


def precision_rate(tp: int, fp: int) -> float | None:
    """TP / (TP + FP) (`precision_rate`)."""
    value: float | None = _TABLE["precision_rate"](tp, fp)
    return value


def f1_score(tp: int, fp: int, fn: int) -> float | None:
    """2TP / (2TP + FP + FN), the harmonic mean of precision and recall (`f1_score`)."""
    value: float | None = _TABLE["f1_score"](tp, fp, fn)
    return value


def f2_score(precision: float, recall: float) -> float:
    """5PR / (4P + R); 0 when both are 0 (`f2_score`)."""
    value: float = _TABLE["f2_score"](precision, recall)
    return value
