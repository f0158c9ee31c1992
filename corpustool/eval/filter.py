"""``--filter`` expressions: keep the pages where extractors scored in a given way.

Seed 004 (Sect. 2.1.3) filters test cases per extractor and metric with
minimum and maximum values, to find e.g. the pages where jusText did well
and boilerpipe did not. Here this is one expression::

    A.precision > 0.8 and B.precision < 0.5
    e1.f1 - e2.f1 > 0.3 or not e1.with_rate >= 0.5

``X.metric`` is a per-page value of the configuration whose label is ``X``
(non-identifier characters of the label replaced by ``_``), or ``eN`` for the
N-th configuration. Allowed: numbers, comparisons (chains too), ``and``,
``or``, ``not``, ``+ - * /`` and parentheses. A comparison with an undefined
value (NaN) is false. The expression is parsed with :mod:`ast` and
evaluated by a small interpreter: nothing else can run.
"""
from __future__ import annotations

import ast
import math
import operator
from typing import Callable, Mapping

from ..errors import OptionError

_COMPARE = {ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

Values = Mapping[str, Mapping[str, float]]   # alias -> metric -> value


class Filter:
    def __init__(self, expression: str, aliases: set[str], metrics: set[str]) -> None:
        self.expression = expression
        try:
            tree = ast.parse(expression.strip(), mode="eval")
        except SyntaxError as exc:
            raise OptionError(f"filter {expression!r}: {exc.msg}", option="filter") from None
        self._aliases = aliases
        self._metrics = metrics
        self._check(tree.body)
        self._tree = tree.body

    def _check(self, node: ast.AST) -> None:
        if isinstance(node, ast.BoolOp):
            for v in node.values:
                self._check(v)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
            self._check(node.operand)
        elif isinstance(node, ast.Compare):
            if not all(type(op) in _COMPARE for op in node.ops):
                raise OptionError(f"filter {self.expression!r}: only < <= > >= == != comparisons", option="filter")
            self._check(node.left)
            for c in node.comparators:
                self._check(c)
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self._check(node.left)
            self._check(node.right)
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            pass
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id not in self._aliases:
                raise OptionError(f"filter: unknown extractor {node.value.id!r}; use one of: "
                                  f"{', '.join(sorted(self._aliases))}", option="filter")
            if node.attr not in self._metrics:
                raise OptionError(f"filter: unknown metric {node.attr!r}; use one of: "
                                  f"{', '.join(sorted(self._metrics))}", option="filter")
        else:
            raise OptionError(f"filter {self.expression!r}: not allowed here: "
                              f"{ast.get_source_segment(self.expression.strip(), node) or type(node).__name__}",
                              option="filter")

    def __call__(self, values: Values) -> bool:
        return bool(self._eval(self._tree, values))

    def _eval(self, node: ast.AST, values: Values) -> float | bool:
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                return all(self._eval(v, values) for v in node.values)
            return any(self._eval(v, values) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, values)
            if isinstance(node.op, ast.Not):
                return not v
            return -v if isinstance(node.op, ast.USub) else +v
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, values)
            for op, comp in zip(node.ops, node.comparators):
                right = self._eval(comp, values)
                if _is_nan(left) or _is_nan(right) or not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BinOp):
            a, b = self._eval(node.left, values), self._eval(node.right, values)
            if isinstance(node.op, ast.Div) and b == 0:
                return math.nan
            fn: Callable[[float, float], float] = _BINARY[type(node.op)]
            return fn(a, b)
        if isinstance(node, ast.Constant):
            return node.value
        assert isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        return values[node.value.id][node.attr]


def _is_nan(v: float | bool) -> bool:
    return isinstance(v, float) and math.isnan(v)
