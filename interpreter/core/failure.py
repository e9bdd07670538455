"""Words for a rule that failed at run time (K401), in the language's terms.

Input: the Python exception that compiled code raised, the state it ran on and the span of
the failing statement. Output: a message, notes and a hint for the diagnostic. Most such
failures are a `none` where a key, a row or a list was needed; this module finds which
expression of the failing statement (or of the `fn` it called) held `none`, by reading the
values that the generated code's frames hold, and says where that `none` likely came from.
No Python name (`None`, `NoneType`, `KeyError`) reaches the author.
"""

from __future__ import annotations

from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import attrs

from dsl.errors import Note, Span
from dsl.syntax import ast

_RULES = "<rules>"  # the file name generated code is compiled under (dsl.codegen.compile._python)
_UNKNOWN = object()


@attrs.frozen
class Failure:
    message: str
    notes: tuple[Note, ...] = ()
    hint: str | None = None


def explain(err: Exception) -> str:
    """A short reason, without the state (initial values, invariants)."""
    if _is_none_failure(err):
        return f"a value was `none` where {_needed(err, None)} was needed"
    if isinstance(err, KeyError):
        return f"{_show(err.args[0])} is not a valid key or row here"
    if isinstance(err, IndexError):
        return "an index is out of range"
    if isinstance(err, ZeroDivisionError):
        return "division by zero"
    return str(err)


def failure(err: Exception, state: Any, span: Span) -> Failure:
    """The K401 message for `err`, raised by the statement at `span` of `state`'s game."""
    reason = explain(err)
    if not _is_none_failure(err):
        return Failure(f"the rule at this place failed: {reason}")
    program = state.game.program
    area, values, fn = _where(err, state, span)
    keys_only = isinstance(err, KeyError)
    _written_out_items(program, area, values, state, keys_only)
    # a `fn` held in place has no frame: a `none` in its body goes first, as it would be
    # found first if the call had been made
    inlined = _inside_inlined(program, area, values, state, keys_only) if fn is None else None
    if inlined is not None:
        fn, found = inlined
    else:
        found = _none_expression(program, area, values, state, keys_only)
    notes: list[Note] = []
    inside = f"in `{fn.name}`, " if fn is not None else ""
    culprit = None
    if isinstance(found, list):
        message = f"the rule at this place failed: {inside}{reason}"
        if found:
            maybe = " or ".join(f"`{_text(value)}` in `{_text(user)}`" for value, user in found)
            message += f" (perhaps {maybe})"
    else:
        culprit, user = found
        message = (
            f"the rule at this place failed: {inside}`{_text(culprit)}` is `none`, "
            f"but `{_text(user)}` needs {_needed(err, user)} there"
        )
        if fn is not None:
            notes.append(Note(culprit.span, f"in `{fn.name}`, `{_text(culprit)}` is `none` here"))
    notes += _causes(program, culprit)
    guard = _text(culprit) if culprit is not None else "the value"
    hint = (
        f"where `none` is a value this rule must expect, guard it (`if {guard} != none`); "
        "otherwise set it before this rule runs"
    )
    return Failure(message, tuple(notes), hint)


# ------------------------------------------------------------------ what kind of failure
def _is_none_failure(err: Exception) -> bool:
    if isinstance(err, KeyError):
        return bool(err.args) and err.args[0] is None
    return isinstance(err, (TypeError, AttributeError)) and "NoneType" in str(err)


def _needed(err: Exception, user) -> str:
    if isinstance(user, ast.FieldGet):
        return "a row"
    if isinstance(err, KeyError):
        return "a key" if isinstance(user, (ast.IndexGet, ast.Target)) else "a key or row"
    text = str(err)
    if "subscriptable" in text:
        return "a list or zone"
    if "iterable" in text or "len()" in text:
        return "a list"
    if "operand" in text or "<" in text or ">" in text:
        return "a number"
    return "a value"


def _show(value: Any) -> str:
    if value is None:
        return "`none`"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return repr(value)


# ------------------------------------------------------------------ where it failed
def _where(err: Exception, state: Any, span: Span):
    """The area of source that failed (the statement, or the body of the `fn` it called),
    the values of the local names there, and that `fn`'s declaration if any."""
    fn_by_code: dict[CodeType, str] = {}
    for name, function in state.game.functions.items():
        code = getattr(function, "__code__", None)
        if code is not None:
            fn_by_code[code] = name
    frames: list[FrameType] = []
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _RULES:
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    owner = None
    for i in range(len(frames) - 1, -1, -1):
        code = frames[i].f_code
        if code in fn_by_code or code.co_name.startswith("_i"):
            owner = i
            break
    values: dict[str, Any] = {}
    if owner is None:
        return span, values, None
    for frame in frames[owner:]:
        for key, value in frame.f_locals.items():
            if key.startswith("v_"):
                values[key[2:]] = value
    frame = frames[owner]
    fn_name = fn_by_code.get(frame.f_code)
    if fn_name is not None:
        fn = state.game.program.decls.get(fn_name)
        if isinstance(fn, ast.Fn):
            return fn.body.span, values, fn
        return span, values, None
    proc = _proc_index(frame.f_code.co_name)
    local_list = frame.f_locals.get("L")
    if isinstance(local_list, list):
        # a slot the block held in a Python local (dsl/codegen/fastlocals.py) has its value there
        local_list = list(local_list)
        for key, value in frame.f_locals.items():
            if key.startswith("_l") and key[2:].isdigit() and int(key[2:]) < len(local_list):
                local_list[int(key[2:])] = value
    if proc is not None and proc < len(state.game.procs) and isinstance(local_list, list):
        for slot, name in enumerate(state.game.procs[proc].local_names):
            if slot < len(local_list) and not name.startswith("$"):
                values.setdefault(name, local_list[slot])
    return span, values, None


def _proc_index(code_name: str) -> int | None:
    parts = code_name[2:].split("_")
    return int(parts[0]) if len(parts) == 2 and parts[0].isdigit() else None


# ------------------------------------------------------------------ which expression
def _within(inner: Span, outer: Span) -> bool:
    return (
        inner.file == outer.file
        and (inner.line, inner.col) >= (outer.line, outer.col)
        and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
    )


def _uses(node, keys_only: bool):
    """(an expression that must not be `none`, the expression that needs it) in `node`."""
    match node:
        case ast.FieldGet(obj=obj):
            yield obj, node
        case ast.IndexGet(obj=obj, indices=indices):
            if not keys_only:
                yield obj, node
            for index in indices:
                yield index, node
        case ast.Target(indices=indices):
            for index in indices:
                yield index, node
        case ast.BinOp(left=left, right=right) if not keys_only:
            yield left, node
            yield right, node
        case ast.CallExpr(args=args) if not keys_only:
            for arg in args:
                if not isinstance(arg, ast.KwArg):
                    yield arg, node


def _none_expression(program, area: Span, values: dict, state: Any, keys_only: bool):
    """The first (expression, its user) in `area` that is certainly `none` where it must not
    be; else a list of at most two whose value cannot be told without evaluating a call."""
    unknown: list[tuple[Any, Any]] = []
    for node in _nodes_in(program, area):
        for value, user in _uses(node, keys_only):
            now = _value(value, values, state)
            if now is None:
                return value, user
            if now is _UNKNOWN and len(unknown) < 2:
                unknown.append((value, user))
    return unknown


def _nodes_in(program, area: Span) -> list:
    """The nodes of the program's rules within `area`."""
    return [
        node
        for decl, _depth in ast.rules(program.decls.values())
        if isinstance(getattr(decl, "span", None), Span) and _overlaps(decl.span, area)
        for node in ast.walk(decl)
        if isinstance(getattr(node, "span", None), Span) and _within(node.span, area)
    ]


def _written_out_items(program, area: Span, values: dict, state: Any, keys_only: bool) -> None:
    """Give the name of each comprehension in `area` that generated code wrote out item by
    item (`Game.written_out`: no frame holds the name) the item it failed at, when that can
    be told: the first item, in order, whose test certainly held and whose value certainly
    has a `none` where it must not; else the name's value is unknown (never a variable's)."""
    written = state.game.written_out
    if not written:
        return
    nodes = [
        node
        for node in _nodes_in(program, area)
        if isinstance(node, ast.Comprehension)
        and node.span in written
        and written[node.span][0] not in values
    ]
    for node in nodes:
        values[written[node.span][0]] = _UNKNOWN
    for node in nodes:
        name, items = written[node.span]
        for item in items:
            given = {**values, name: item}
            if node.cond is not None:
                test = _value(node.cond, given, state)
                if test is _UNKNOWN:
                    break
                if not test:
                    continue
            found = _none_expression(program, node.expr.span, given, state, keys_only)
            if not isinstance(found, list):
                values[name] = item
                break
            if found:  # a value that cannot be told: so neither can the item
                break


def _inside_inlined(program, area: Span, values: dict, state: Any, keys_only: bool):
    """(the `fn`, (expression, its user)) when the `none` is certainly in the body of a `fn`
    that the statement at `area` calls and that generated code holds in place (so no frame
    of its own tells its parameters): the parameters are the arguments' values now."""
    for node in _nodes_in(program, area):
        if not isinstance(node, ast.CallExpr) or node.name not in state.game.inlined:
            continue
        fn = program.decls.get(node.name)
        args = [_value(a, values, state) for a in node.args if not isinstance(a, ast.KwArg)]
        if not isinstance(fn, ast.Fn) or any(a is _UNKNOWN for a in args):
            continue
        given = {p.name: a for p, a in zip(fn.params, args)}
        found = _none_expression(program, fn.body.span, given, state, keys_only)
        if not isinstance(found, list):
            return fn, found
    return None


def _overlaps(outer: Span, area: Span) -> bool:
    return outer.file == area.file and outer.line <= area.line and outer.end_line >= area.end_line


def _value(e, values: dict, state: Any) -> Any:
    """The value of a simple expression now, or `_UNKNOWN` (never evaluates a call)."""
    match e:
        case ast.NoneLit():
            return None
        case ast.IntLit() | ast.StrLit() | ast.BoolLit():
            return e.value
        case ast.NameRef(name=name):
            if name in values:
                return values[name]
            try:
                spec = state.game.var(name)
            except KeyError:
                return _UNKNOWN
            return state.g[spec.slot] if not spec.domains else _UNKNOWN
        case ast.FieldGet(obj=obj, name=field):
            row = _value(obj, values, state)
            if isinstance(row, str) and row in state.game.rows:
                return state.game.rows[row].get(field, _UNKNOWN)
            return _UNKNOWN
        case ast.IndexGet(obj=ast.NameRef(name=name), indices=indices) if name not in values:
            keys = [_value(i, values, state) for i in indices]
            if any(k is _UNKNOWN or k is None for k in keys):
                return _UNKNOWN
            try:
                return state.get(name, *keys)
            except (KeyError, ValueError, IndexError, TypeError):
                return _UNKNOWN
    return _UNKNOWN


def _text(e) -> str:
    from dsl.syntax.fmt import expr

    if isinstance(e, ast.Target):
        return e.name + "[" + ", ".join(expr(i) for i in e.indices) + "]"
    return expr(e)


# ------------------------------------------------------------------ why it may be none
def _causes(program, culprit) -> list[Note]:
    notes = []
    name = culprit.name if isinstance(culprit, ast.NameRef) else None
    decl = program.decls.get(name) if name is not None else None
    if isinstance(decl, ast.Var) and isinstance(decl.value, ast.NoneLit):
        notes.append(Note(decl.span, f"`{name}` starts as `none` here"))
    setup = program.one(ast.Setup)
    if setup is not None and Path(setup.span.file).suffix == ".scenario":
        what = f"`{name}`" if name is not None else "it"
        notes.append(
            Note(
                setup.span,
                "this scenario's `position` replaces the ruleset's setup: "
                f"it may skip a setup step that sets {what}",
            )
        )
    return notes
