"""The rows a decision can never offer, and the options written out in the rules it
could, read from its options' expression.

`self.excluded(expr)` is the set of rows that `expr` can never hold, found without
playing: rows of other tables than `rows(T)` or a rule's declared `list of R` allows, and
rows a comprehension's condition rules out by their printed fields alone
(`[b for b in rows(cards) if not b.predator]` never holds a predator). What depends on
the game's state is unknown, and unknown never excludes. Random play's K857 looks only at
the rows left: a row excluded by design is not a finding. `written(game, expr)` lists
the options drawn from lists the rules write out (`["tea", "cake"]`), less those a
condition rules out by their own value, for random play's K859.
"""

from __future__ import annotations

from typing import Any

from dsl.syntax import ast
from interpreter.core.game import Game

UNKNOWN = object()
DEPTH = 8  # rules followed into rules, at most


def excluded(game: Game, expr: Any) -> frozenset[str]:
    return _Reader(game).excluded(expr, 0)


def written(game: Game, expr: Any) -> list[Any]:
    """The options `expr` draws from lists written out in the rules (names and numbers),
    less those a condition rules out by themselves, in order."""
    return list(dict.fromkeys(_Reader(game).written(expr, 0)))


class _Reader:
    def __init__(self, game: Game):
        self.game = game
        self.enums = {
            v for d in game.program.decls.values() if isinstance(d, ast.Enum) for v in d.values
        }

    def excluded(self, expr: Any, depth: int) -> frozenset[str]:
        game = self.game
        everything = frozenset(game.rows)
        if depth > DEPTH:
            return frozenset()
        decl = game.program.decls.get(expr.name) if isinstance(expr, ast.CallExpr) else None
        if isinstance(expr, ast.CallExpr) and expr.name == "rows" and len(expr.args) == 1:
            table = expr.args[0]
            if isinstance(table, ast.NameRef) and table.name in game.tables:
                return everything - frozenset(game.tables[table.name])
        if isinstance(decl, ast.Fn) and not expr.base:
            return self.excluded(decl.body, depth + 1) | self._of_type(decl.result)
        if isinstance(expr, ast.BinOp) and expr.op == "+":
            return self.excluded(expr.left, depth + 1) & self.excluded(expr.right, depth + 1)
        if isinstance(expr, ast.Comprehension) and len(expr.fors) == 1:
            (source,) = expr.fors
            if not (isinstance(expr.expr, ast.NameRef) and expr.expr.name == source.name):
                return frozenset()
            out = self.excluded(source.iter, depth + 1)
            if expr.cond is not None:
                out |= {
                    r
                    for r in everything - out
                    if self._value(expr.cond, source.name, r, depth) is False
                }
            return out
        literal = (ast.NameRef, ast.StrLit, ast.IntLit, ast.BoolLit)
        if isinstance(expr, ast.ListLit) and all(isinstance(i, literal) for i in expr.items):
            return everything - {i.name for i in expr.items if isinstance(i, ast.NameRef)}
        return frozenset()

    def written(self, expr: Any, depth: int) -> list[Any]:
        if depth > DEPTH:
            return []
        if isinstance(expr, ast.ListLit):
            items = [self._value(i, "", "", depth) for i in expr.items]
            return [] if any(i is UNKNOWN for i in items) else items
        if isinstance(expr, ast.BinOp) and expr.op == "+":
            return self.written(expr.left, depth + 1) + self.written(expr.right, depth + 1)
        decl = self.game.program.decls.get(expr.name) if isinstance(expr, ast.CallExpr) else None
        if isinstance(decl, ast.Fn) and not expr.base:
            return self.written(decl.body, depth + 1)
        if isinstance(expr, ast.Comprehension) and len(expr.fors) == 1:
            (source,) = expr.fors
            if not (isinstance(expr.expr, ast.NameRef) and expr.expr.name == source.name):
                return []
            return [
                v
                for v in self.written(source.iter, depth + 1)
                if expr.cond is None or self._value(expr.cond, source.name, v, depth) is not False
            ]
        return []

    def _of_type(self, result: Any) -> frozenset[str]:
        """The rows a rule's declared `list of R` cannot hold (R a record of tables)."""
        game = self.game
        if not (isinstance(result, ast.TypeList) and isinstance(result.elem, ast.TypeName)):
            return frozenset()
        record = result.elem.name
        tables = [
            d
            for d in game.program.decls.values()
            if isinstance(d, ast.Table) and d.record == record
        ]
        if not tables:
            return frozenset()
        return frozenset(game.rows) - {r.name for t in tables for r in t.rows}

    def _value(self, expr: Any, var: str, row: Any, depth: int) -> Any:
        """The value of `expr` with `var` standing for `row` (a row's name, or a written
        option), where only printed fields and constants decide it; else UNKNOWN."""
        game = self.game
        if isinstance(expr, (ast.IntLit, ast.StrLit, ast.BoolLit)):
            return expr.value
        if isinstance(expr, ast.NameRef):
            if var and expr.name == var:
                return row
            if expr.name in game.params:
                return game.params[expr.name]
            if expr.name in game.rows or expr.name in self.enums:
                return expr.name
            return UNKNOWN
        if isinstance(expr, ast.FieldGet):
            obj = self._value(expr.obj, var, row, depth)
            fields = game.rows.get(obj) if isinstance(obj, str) else None
            return fields.get(expr.name, UNKNOWN) if fields is not None else UNKNOWN
        if isinstance(expr, ast.UnaryOp) and expr.op == "not":
            inner = self._value(expr.operand, var, row, depth)
            return (not inner) if isinstance(inner, bool) else UNKNOWN
        if isinstance(expr, ast.BinOp):
            return self._binop(expr, var, row, depth)
        if isinstance(expr, ast.CallExpr) and depth < DEPTH:
            decl = game.program.decls.get(expr.name)
            # a one-parameter rule of the row itself: its body, with the row for the parameter
            if isinstance(decl, ast.Fn) and len(decl.params) == 1 and len(expr.args) == 1:
                arg = expr.args[0]
                if isinstance(arg, ast.NameRef) and arg.name == var:
                    return self._value(decl.body, decl.params[0].name, row, depth + 1)
        return UNKNOWN

    def _binop(self, expr: ast.BinOp, var: str, row: Any, depth: int) -> Any:
        left = self._value(expr.left, var, row, depth)
        if expr.op == "and" and left is False or expr.op == "or" and left is True:
            return left
        right = self._value(expr.right, var, row, depth)
        if expr.op in ("and", "or"):
            if right is (expr.op == "or"):
                return right
            if isinstance(left, bool) and isinstance(right, bool):
                return right
            return UNKNOWN
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if expr.op == "==":
            return left == right
        if expr.op == "!=":
            return left != right
        return UNKNOWN
