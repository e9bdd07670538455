"""Part of lowering: expressions and places -> Python source.

In: checked expressions and assignable places (`ast.Target`), with the `Symbols` of the
program and a `Scope` for local names. Out: Python source text, inlined by `dsl.codegen.lower` into
instructions. Every value that is not a plain literal enters the generated code through
`const`, a name bound in the namespace the code runs in (`env`); literals enter through
`repr`, names only through the symbol table, so no ruleset text is ever executed as Python.
"""

from __future__ import annotations

import builtins
import re
import sys
from collections import deque
from typing import Any

from dsl.errors import Span
from dsl.semantics.builtins import BUILTINS, STATE_NAMES
from dsl.semantics.symbols import FLIPPED, Symbols
from dsl.semantics.types import ANY, INT, Named, Type, Typing, elem, may_be_list, may_hold_lists
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, on
from interpreter.core.runtime import RUNTIME

# a roll of more literal dice than this is charged to the work budget (fewer cost nothing)
_FEW_DICE = 100
# a comprehension over at most this many items known when compiling is written out item by
# item (`Exprs.written_out`); one inside another shares the number (3 items leave 4 each)
WRITTEN_OUT = 12


# generated source that only reads a local or an item of one (`L[5][0]`, `v_x`)
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[A-Za-z0-9_\[\]]*\])*$")


def _small_literal(e) -> bool:
    """A number written in the rules, of at most 16 bits: a product by it grows by no more
    than that per step of the budget, so it is not checked (most products are such)."""
    return isinstance(e, ast.IntLit) and abs(e.value) < 1 << 16


# what the body of a `fn` that is inlined may hold (`Exprs.inlined`), and its size
_INLINE_NODES = (
    ast.IntLit,
    ast.StrLit,
    ast.BoolLit,
    ast.NoneLit,
    ast.NameRef,
    ast.ListLit,
    ast.IfExpr,
    ast.UnaryOp,
    ast.BinOp,
    ast.FieldGet,
    ast.IndexGet,
    ast.CallExpr,
)
_INLINE_SIZE = 40


def inlinable(fn: ast.Fn, sym: Symbols) -> dict[str, int] | None:
    """How often the body of `fn` reads each parameter, if it may be inlined (None: not).
    A plain `fn` with a rule of its own, whose body is at most `_INLINE_SIZE` nodes of
    `_INLINE_NODES` and calls only built-ins (a tag's value, `base(...)` or another `fn`
    is a call that stays one)."""
    if fn.kind != "fn" or fn.signature_only or fn.base is not None:
        return None
    nodes = list(ast.walk(fn.body))
    if len(nodes) > _INLINE_SIZE:
        return None
    params = {p.name for p in fn.params}
    uses = dict.fromkeys(params, 0)
    for node in nodes:
        if not isinstance(node, _INLINE_NODES):
            return None
        if isinstance(node, ast.CallExpr) and (
            node.base or sym.kind.get(node.name) is not None or node.name not in BUILTINS
        ):
            return None
        if isinstance(node, ast.NameRef) and node.name in params:
            uses[node.name] += 1
    return uses


def _conjuncts(e) -> list:
    """The parts of a chain of `and`, left to right (one part: `e` itself)."""
    if isinstance(e, ast.BinOp) and e.op == "and":
        return [*_conjuncts(e.left), e.right]
    return [e]


def _chain(parts: list):
    """The chain of `and` of `parts`, nested to the left as written (`_conjuncts` undone)."""
    e = parts[0]
    for part in parts[1:]:
        e = ast.BinOp("and", e, part, span=e.span)
    return e


def _names(e, name: str) -> bool:
    """Does `e` name `name`?"""
    return any(isinstance(n, ast.NameRef) and n.name == name for n in ast.walk(e))


def _kept(value: str, test: str | None) -> str:
    """An entry of a written-out comprehension's list display (`Exprs.written_out`)."""
    return value if test is None else f"*(({value},) if {test} else ())"


def _decided(name: str, value: str, test: str | None) -> str:
    """An item of `any` (`name`) or `all` written out as a part of a chain of `or` or `and`
    (`Exprs.quantified`): an item left out by its test decides nothing."""
    if test is None:
        return f"({value})"
    return f"({test} and {value})" if name == "any" else f"(not {test} or {value})"


def _fresh(expr) -> bool:
    """Does the expression always build a new value (so no copy is needed on assignment)?"""
    if isinstance(
        expr,
        (
            ast.ListLit,
            ast.Comprehension,
            ast.RollDice,
            ast.IntLit,
            ast.StrLit,
            ast.BoolLit,
            ast.NoneLit,
            ast.BinOp,
            ast.UnaryOp,
        ),
    ):
        return True
    if isinstance(expr, ast.CallExpr):
        spec = BUILTINS.get(expr.name)
        return spec is not None and spec.fresh
    return False


def copier(t: Type) -> str:
    """The runtime helper that copies a value of type `t` to be stored (`_copy` one level,
    `_copy_deep` every level; a value that is not a list passes through either)."""
    return "_copy_deep" if may_hold_lists(t) else "_copy"


_NOT_LITERAL = object()
# the comparisons whose truth bounds a number (`Exprs.bounds`), and each one turned around
_BOUNDS = ("<", "<=", ">", ">=")
_COMPARISONS = ("==", "!=", *_BOUNDS)
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _literal_value(e) -> Any:
    """The value of a number, text, truth value or none written in the rules (a negative
    number too), else `_NOT_LITERAL`."""
    if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)):
        return e.value
    if isinstance(e, ast.NoneLit):
        return None
    if isinstance(e, ast.UnaryOp) and e.op == "-" and isinstance(e.operand, ast.IntLit):
        return -e.operand.value
    return _NOT_LITERAL


def _known_values(e, scope: Scope):
    """Every value `e` can have, when the rules' text says them: a comprehension's name
    walking a written `range` or a `param`'s list, or the item `n` (a written number) of
    such a name whose every item is a list longer than `n`; else None."""
    if isinstance(e, ast.NameRef):
        ends = scope.ranges.get(e.name)
        if ends is not None:
            return range(*ends)
        return scope.walks.get(e.name)
    if (
        isinstance(e, ast.IndexGet)
        and isinstance(e.obj, ast.NameRef)
        and len(e.indices) == 1
        and isinstance(e.indices[0], ast.IntLit)
    ):
        items = scope.walks.get(e.obj.name)
        n = e.indices[0].value
        if items is not None and n >= 0 and all(isinstance(i, (list, tuple)) for i in items):
            if all(len(i) > n for i in items):
                return [i[n] for i in items]
    return None


def intern_texts(namespace: dict) -> None:
    """The texts in the constants of generated code made Python's own interned strings,
    like the texts written in the code itself: two texts that are one object compare
    without reading their characters, so a row's name from a table and the same name from
    the code meet at once (about 1 % fewer instructions per game where rows are many,
    bench/instructions.py).
    Done once the namespace is complete (`Compiler.compile`), and again when a packed game
    is read back (`dsl.codegen.cache.unpack`: pickle does not intern)."""
    for name, value in list(namespace.items()):
        if name.startswith("_") and not callable(value):
            namespace[name] = _interned(value)


def _interned(value):
    kind = type(value)
    if kind is str:
        return sys.intern(value)
    if kind is list:
        value[:] = [_interned(item) for item in value]
    elif kind is dict:
        items = [(_interned(k), _interned(v)) for k, v in value.items()]
        value.clear()
        value.update(items)
    elif kind is tuple:
        return tuple(_interned(item) for item in value)
    elif kind is frozenset:
        return frozenset(_interned(item) for item in value)
    return value


def fn_name(name: str, depth: int) -> str:
    """The Python name of a derived value in generated code: `_F_name`, and `_F<depth>_name`
    for a rule replaced and called with `base(...)` (no ruleset name can make either)."""
    return f"_F_{name}" if depth == 0 else f"_F{depth}_{name}"


class Scope:
    """How local names are reached in generated code: `L[i]` slots, or Python names."""

    def __init__(self, params: tuple[str, ...] = (), python_params: bool = False):
        self.names: list[str] = []
        self.where: dict[str, str] = {}
        # the comprehension names that walk a `range` written in the rules: its two ends
        self.ranges: dict[str, tuple[int, int]] = {}
        # the comprehension names that walk a `param`'s list: its items
        self.walks: dict[str, tuple] = {}
        # the cells a comprehension walks along a variable's row (`Exprs.row_walk`): the
        # Python name that holds each, by the `id` of the expression that reads it
        self.cells: dict[int, str] = {}
        for name in params:
            if python_params:
                self.where[name] = f"v_{name}"
            else:
                self.slot(name)

    def slot(self, name: str) -> int:
        ref = self.where.get(name)
        if ref is not None and ref.startswith("L["):
            return int(ref[2:-1])
        self.names.append(name)
        self.where[name] = f"L[{len(self.names) - 1}]"
        return len(self.names) - 1

    def temp(self, hint: str) -> int:
        self.names.append(f"${hint}")
        return len(self.names) - 1

    def inner(self, bound: list[str]) -> Scope:
        """A scope for a comprehension: its loop names become Python names."""
        child = Scope.__new__(Scope)
        child.names = self.names
        child.where = dict(self.where)
        child.ranges = {name: ends for name, ends in self.ranges.items() if name not in bound}
        child.walks = {name: items for name, items in self.walks.items() if name not in bound}
        child.cells = dict(self.cells)
        for name in bound:
            child.where[name] = f"v_{name}"
        return child


class Exprs(Visitor):
    """Expressions and places of one program as Python source, and the namespace that
    generated code runs in: the helpers of `interpreter.core.runtime`, the ruleset's rows and
    adjacency, and every constant the code names."""

    domain = ast.EXPRESSIONS

    def __init__(self, symbols: Symbols, typing: Typing, fold: bool = True):
        self.sym = symbols
        self.typing = typing
        self.env: dict[str, Any] = dict(RUNTIME)
        self.env.update(_R=symbols.rows, _ADJ=symbols.adjacency)
        # the module the generated functions name as theirs: no module of the process, so a
        # packed game carries them by value (dsl/codegen/cache.py) without a search for one
        self.env["__name__"] = "<rules>"
        # Python's built-ins as the module, which a packed game names, never as the module's
        # dict, whose every entry it would carry (and could not, were one replaced for a
        # while, as a test or a debugger may replace `print`)
        self.env["__builtins__"] = builtins
        self.consts: dict[int, str] = {}
        # the rule being compiled, as (name, depth): a `base(...)` call calls depth + 1; and
        # its kind (a condition's `base(...)` passes on `self` and `this`)
        self.rule: tuple[str, int] = ("", 0)
        self.rule_kind = ""
        self.walking = 0  # > 0: compiling the list a comprehension walks (see `checked`)
        # `fold`: use what the rules' text tells when compiling (items written out, the
        # bounds a test sets); plain code does not, and must play the same games
        self.fold = fold
        # how many copies an item of a comprehension may have now (`written_out`)
        self.room = WRITTEN_OUT if fold else 0
        # the comprehensions written out (`written_out`), by span: the name and its items
        self.written: dict[Span, tuple[str, tuple]] = {}
        self.bound = 0  # names bound for operands so far (see `checked`)
        self._inlinable: dict[str, dict[str, int] | None] = {}  # by fn: see `inlined`
        self._inlined: set[str] = set()  # the fns some call was compiled in place of
        # the locals of the procedure being lowered that hold only small numbers (`small`)
        self.small_names: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ namespace
    def const(self, value: Any, hint: str = "k") -> str:
        """A name in the generated code's namespace bound to `value`."""
        key = id(value)
        if key not in self.consts:
            name = f"_{hint}{len(self.consts)}"
            self.env[name] = value
            self.consts[key] = name
        return self.consts[key]

    # ------------------------------------------------------------------ values
    def owned(self, e, scope: Scope) -> str:
        """Python source for the value of `e` as a new place stores it: a list that no other
        place holds, nor any list inside it (lists are values). The checker's type of `e`
        says how deep to copy: not at all for a number, one level for a list of numbers,
        all the way for a list that may hold lists."""
        t = self.typing.of(e)
        if not may_be_list(t):
            return self.x(e, scope)
        if isinstance(e, ast.ListLit):
            return "[" + ", ".join(self.owned(item, scope) for item in e.items) + "]"
        source = self.x(e, scope)
        if _fresh(e):
            return f"_copy_deep({source})" if may_hold_lists(t) else source
        return f"{copier(t)}({source})"

    def item(self, items, source: str) -> str:
        """Python source for one item (`source`) of the list `items`, as a loop variable
        holds it: its own copy when the items may be lists."""
        t = elem(self.typing.of(items)) or ANY
        return f"{copier(t)}({source})" if may_be_list(t) else source

    # ------------------------------------------------------------------ places
    def place(self, t: ast.Target, scope: Scope) -> str:
        """Python source for an assignable place (a local, a variable, a keyed cell)."""
        if t.name in scope.where:
            base = scope.where[t.name]
            return base + "".join(f"[{self.x(i, scope)}]" for i in t.indices)
        slot = self.sym.slot_of(t.name)
        decl = self.sym.decls[t.name]
        keys = self.sym.keys_of(decl)
        if keys and t.indices:
            item = "".join(f"[{self.x(i, scope)}]" for i in t.indices[len(keys) :])
            return f"st.g[{slot}][{self.flat(decl, t.indices[: len(keys)], scope)}]{item}"
        return f"st.g[{slot}]" + "".join(f"[{self.x(i, scope)}]" for i in t.indices)

    def flat(self, decl, indices, scope: Scope) -> str:
        parts = []
        keys = self.sym.keys_of(decl)
        sizes = [len(self.sym.domain(k)) for k in keys]
        for n, (key, index) in enumerate(zip(keys, indices)):
            stride = 1
            for size in sizes[n + 1 :]:
                stride *= size
            term = self._position(key, index, scope)
            if term.isdigit():  # a position known when compiling
                parts.append(str(int(term) * stride))
            else:
                parts.append(term if stride == 1 else f"{term} * {stride}")
        known = sum(int(part) for part in parts if part.isdigit())
        parts = [part for part in parts if not part.isdigit()]
        return " + ".join(parts + [str(known)] if known or not parts else parts)

    def _position(self, key, index, scope: Scope) -> str:
        """Python source for where `index` lies among the values of `key`: looked up in a
        table of them, which also refuses a value that is not one (K401); or, for a number
        whose every value is known and inside those values (`_known_values`), worked out."""
        domain = self.sym.domain(key)
        values = _known_values(index, scope)
        if values is None:
            value = self.known_value(index, scope)
            values = None if value is _NOT_LITERAL else (value,)
        if values is not None and len(values) == 1:  # known: written, or an item's own
            at = [i for i, v in enumerate(domain) if v == values[0] and type(v) is type(values[0])]
            if at:
                return str(at[0])
        if values is not None and domain and domain == tuple(range(domain[0], domain[-1] + 1)):
            if all(type(v) is int and domain[0] <= v <= domain[-1] for v in values):
                name = self.x(index, scope)
                return name if domain[0] == 0 else f"({name} - {domain[0]})"
        return f"{self.const(self.sym.domain_index(key), 'm')}[{self.x(index, scope)}]"

    def known_value(self, e, scope: Scope) -> Any:
        """The one value `e` can have by the rules' text, else `_NOT_LITERAL`: a constant
        (`constant_of`), a name or item with one known value (`_known_values`: a written-out
        item's), or an item at a known position of an enum's values, a table's rows or a
        map's nodes (`values(colour)[0]`)."""
        values = _known_values(e, scope)
        if values is not None:
            return values[0] if len(values) == 1 else _NOT_LITERAL
        if isinstance(e, ast.IndexGet) and len(e.indices) == 1:
            listed = self._listed_call(e.obj)
            if listed is None:
                return _NOT_LITERAL
            at = self.known_value(e.indices[0], scope)
            items = self.listed_items(listed)
            return items[at] if type(at) is int and 0 <= at < len(items) else _NOT_LITERAL
        return self.constant_of(e, scope)

    def constant_of(self, e, scope: Scope) -> Any:
        """The value of `e` when it is written in the rules or names a constant (an enum's
        value, a `param` number), else `_NOT_LITERAL`."""
        value = _literal_value(e)
        if value is not _NOT_LITERAL or not isinstance(e, ast.NameRef):
            return value
        name = e.name
        if name in scope.where or name in STATE_NAMES or self.sym.slot_of(name) is not None:
            return _NOT_LITERAL
        value = self.sym.constant(name)
        return value if value is None or type(value) in (int, str, bool) else _NOT_LITERAL

    def _param_items(self, e, scope: Scope) -> tuple | None:
        """The items of the list `e`, when it names a `param` (a constant of the ruleset)."""
        if not isinstance(e, ast.NameRef) or e.name in scope.where:
            return None
        if self.sym.kind.get(e.name) != "param":
            return None
        value = self.sym.constant(e.name)
        return tuple(value) if isinstance(value, (list, tuple)) else None

    def pool_cells(self, t: ast.Target, scope: Scope) -> str:
        """A pool named by all its keys but its kind (`has[p]`), for `spend` and `affordable`:
        its cells, where that row of counts starts, and the kinds' positions in it."""
        decl = self.sym.decls[t.name]
        keys = self.sym.keys_of(decl)
        start = self.flat(decl, t.indices, scope) if t.indices else "0"
        kinds = self.const(self.sym.domain_index(keys[-1]), "m")
        return f"st.g[{self.sym.slot_of(t.name)}], {start}, {kinds}"

    # A `row N` zone keeps its N slots: taking a card leaves a gap (none), adding fills the
    # first gap, and `z[i]` (after any keys) names slot i. Other zones are plain lists.
    def row_slot(self, t: ast.Target):
        """(is a row zone, the slot index expression or None)."""
        decl = self.sym.decls.get(t.name)
        if not (isinstance(decl, ast.Zone) and decl.kind == "row"):
            return False, None
        keys = len(self.sym.keys_of(decl))
        return True, (t.indices[keys] if len(t.indices) == keys + 1 else None)

    def container(self, t: ast.Target, scope: Scope) -> str:
        is_row, slot = self.row_slot(t)
        if slot is not None:
            t = ast.Target(t.name, t.indices[:-1], span=t.span)
        return self.place(t, scope)

    def put_into(self, t: ast.Target, value: str, scope: Scope) -> str:
        is_row, slot = self.row_slot(t)
        where = repr(t.name)
        if slot is not None:
            return f"_row_put({self.container(t, scope)}, {self.x(slot, scope)}, {value}, {where})"
        if is_row:
            return f"_row_add({self.place(t, scope)}, {value}, {where})"
        return f"{self.place(t, scope)}.append({value})"

    def take_from(self, t: ast.Target, value: str, scope: Scope) -> str:
        is_row, _slot = self.row_slot(t)
        helper = "_row_take" if is_row else "_remove"
        return f"{helper}({self.container(t, scope)}, {value}, {t.name!r})"

    # ------------------------------------------------------------------ expressions
    def x(self, e, scope: Scope) -> str:
        """The Python source of expression `e`: `visit`, without its general arguments (it
        runs for every node of every expression, which counts in the larger rulesets)."""
        handler = self._handlers.get(e.__class__)
        if handler is None:
            return self.visit(e, scope)  # raises Unhandled
        return handler(self, e, scope)

    @on(ast.IntLit, ast.StrLit, ast.BoolLit)
    def x_literal(self, e, scope):
        return repr(e.value)

    @on(ast.NoneLit)
    def x_NoneLit(self, e, scope):
        return "None"

    @on(ast.NameRef)
    def x_NameRef(self, e: ast.NameRef, scope):
        name = e.name
        if name in scope.where:
            return scope.where[name]
        if name in STATE_NAMES:
            return STATE_NAMES[name]
        slot = self.sym.slot_of(name)
        if slot is not None:
            return f"st.g[{slot}]"
        value = self.sym.constant(name)
        if value is None or isinstance(value, (int, str, bool)):
            return repr(value)
        # read in place: whatever stores a value copies it (`owned`), and nothing else in
        # generated code changes a list it reads
        return self.const(value)

    @on(ast.ListLit)
    def x_ListLit(self, e, scope):
        return "[" + ", ".join(self.x(i, scope) for i in e.items) + "]"

    @on(ast.Comprehension)
    def x_Comprehension(self, e: ast.Comprehension, scope):
        picks = self.picks(e)
        bare = isinstance(e.expr, ast.NameRef) and e.expr.name == e.fors[0].name
        if picks is not None and not picks[2] and bare:  # the group's rows themselves
            return f"list({self.const(picks[0], 'p')}.get({self.x(picks[1], scope)}, ()))"
        row = self.row_read(e, scope)
        if row is not None:
            return row
        written = self.written_out(e, scope)
        if written is not None:
            return "[" + ", ".join(_kept(value, test) for value, test in written) + "]"
        return f"[{self.walk(e, scope)}]"

    def walk(self, e: ast.Comprehension, scope: Scope) -> str:
        """The `for`s and test of a comprehension, as a Python comprehension's, without the
        brackets: a list's or a generator's."""
        walk = self.picked(e, scope)
        if walk is not None:
            return walk
        walk = self.row_walk(e, scope)
        if walk is not None:
            return walk
        sources = []  # each `for`'s list
        inner = scope
        for n, comp in enumerate(e.fors):
            self.walking += 1
            try:
                iter_src = self.walked(comp.iter, inner)
            finally:
                self.walking -= 1
            items = self._param_items(comp.iter, inner)  # before the name is bound
            seats = self.seats(comp.iter, inner)
            inner = inner.inner([comp.name])
            ends = self.written_range(comp.iter) or seats
            if ends is not None:
                inner.ranges[comp.name] = ends
            if items is not None:
                inner.walks[comp.name] = items
            # one `for` makes at most one item per item of a list that exists already; the
            # next ones multiply, so each of their turns is a step of the work budget
            sources.append(f"_steps(st, {iter_src})" if n else iter_src)
        parts = [f"for v_{c.name} in {src}" for c, src in zip(e.fors, sources)]
        last = e.fors[-1]
        tests = _conjuncts(e.cond) if e.cond is not None else []
        early = 0  # the first tests, which do not read the last `for`'s name
        if self.fold and len(e.fors) > 1 and self.never_empty(last.iter):
            while early < len(tests) and not _names(tests[early], last.name):
                early += 1
        if early:
            # tested once before the last `for` instead of at each of its turns, which (the
            # list never empty) work them out at least once, at the same point, the list
            # charged first: the same items, the same fault
            parts[-1] = (
                f"for _o in ({sources[-1]},) if {self.x(_chain(tests[:early]), inner)} "
                f"for v_{last.name} in _o"
            )
        rest = tests[early:]
        cond = f" if {self.x(_chain(rest), inner)}" if rest else ""
        return f"{self.x(e.expr, inner)} {' '.join(parts)}{cond}"

    def written_range(self, e) -> tuple[int, int] | None:
        """The two ends of `range(a, b)` when the rules' text says both: each a written
        number or the length of an enum's values, a table's rows or a map's nodes; else
        None."""
        if not (isinstance(e, ast.CallExpr) and e.name == "range" and not e.base):
            return None
        ends = [self.known_int(a) for a in e.args]
        if len(ends) != 2 or ends[0] is None or ends[1] is None:
            return None
        return ends[0], ends[1]

    def seats(self, e, scope: Scope) -> tuple[int, int] | None:
        """The range of the seats, from 0 to the most players less one, when `e` is the list
        of every player (`players`): what a name walking it holds, and where it is among the
        values of a key of `player`; else None."""
        if isinstance(e, ast.NameRef) and e.name == "players" and e.name not in scope.where:
            return 0, self.sym.max_players
        return None

    def known_int(self, e) -> int | None:
        """A number written in the rules, or the length of an enum's values, a table's rows
        or a map's nodes; else None."""
        if isinstance(e, ast.IntLit):
            return e.value
        if isinstance(e, ast.CallExpr) and e.name == "len" and not e.base and len(e.args) == 1:
            listed = self._listed_call(e.args[0])
            if listed is not None:
                return len(self.listed_items(listed))
        return None

    def _listed_call(self, e) -> ast.CallExpr | None:
        """`e` when it is a call of the built-in `nodes`, `rows` or `values`, else None."""
        if isinstance(e, ast.CallExpr) and e.name in ("nodes", "rows", "values") and not e.base:
            if not self.sym.kind.get(e.name):
                return e
        return None

    def never_empty(self, e) -> bool:
        """Is the list `e` never empty, by the rules' text: a node's neighbours on maps where
        every node has one, a map's nodes, a table's rows or an enum's values, a written
        `range` or list with items?"""
        if isinstance(e, ast.ListLit):
            return bool(e.items)
        ends = self.written_range(e)
        if ends is not None:
            return ends[0] < ends[1]
        if not isinstance(e, ast.CallExpr) or e.base or self.sym.kind.get(e.name):
            return False
        if e.name == "adjacent":
            return all(self.sym.adjacency.values())
        return e.name in ("nodes", "rows", "values") and bool(self.listed_items(e))

    def written_out(
        self, e: ast.Comprehension, scope: Scope
    ) -> list[tuple[str, str | None]] | None:
        """A comprehension of one `for` over a few items known when compiling (`known_items`),
        written out: for each item, in order, the source of its value and of its test (None:
        no test), the name replaced by the item. As a list display (`_kept`) it needs no
        function for the comprehension and no loop (a third to two fifths less time for three
        to nine items). None when the comprehension is not such."""
        if len(e.fors) != 1 or self.picks(e) is not None:
            return None
        comp = e.fors[0]
        items = self.known_items(comp.iter, scope)
        if items is None or not self.room or len(items) > self.room:
            return None
        self.written[e.span] = (comp.name, items)
        room = self.room
        self.room = room // max(len(items), 1)
        try:
            parts = []
            for item in items:
                inner = scope.inner([comp.name])
                inner.where[comp.name] = self.literal(item)
                inner.walks[comp.name] = (item,)
                value = self.x(e.expr, inner)
                parts.append((value, None if e.cond is None else self.x(e.cond, inner)))
        finally:
            self.room = room
        return parts

    def picks(self, e: ast.Comprehension) -> tuple[dict, Any, list] | None:
        """A comprehension of one `for` over a table's rows whose test begins with a field of
        the row equal to a value from outside it, or holding one (`r.rank == n`, `d in
        r.domains`; the value a name or written): the rows that pass that part, grouped by
        the value when compiling (each group in the table's order), the value, and the rest
        of the test. None when the comprehension is not such, or a field's value cannot key
        a dict (a list), or the code is plain (`fold` off)."""
        if not self.fold or len(e.fors) != 1 or e.cond is None:
            return None
        comp = e.fors[0]
        it = comp.iter
        if not (isinstance(it, ast.CallExpr) and it.name == "rows" and not it.base):
            return None
        if self.sym.kind.get(it.name):
            return None
        first, *rest = _conjuncts(e.cond)
        if not isinstance(first, ast.BinOp) or first.op not in ("==", "in"):
            return None
        # (the value, the field): `v in r.f`, or `r.f == v` either way round
        sides = [(first.left, first.right)]
        if first.op == "==":
            sides.insert(0, (first.right, first.left))
        for value, field in sides:
            if not (
                isinstance(field, ast.FieldGet)
                and isinstance(field.obj, ast.NameRef)
                and field.obj.name == comp.name
                and self._sides(field) is None
                and (isinstance(value, ast.NameRef) or _literal_value(value) is not _NOT_LITERAL)
                and not _names(value, comp.name)
            ):
                continue
            groups = self._groups(self.listed_items(it), field.name, first.op == "in")
            if groups is not None:
                return groups, value, rest
        return None

    def _groups(self, rows: tuple, field: str, members: bool) -> dict | None:
        """The rows by the value of their `field` (by each value it holds, when `members`),
        each group in the rows' order; None if a row lacks the field or a value is a list."""
        groups: dict[Any, list] = {}
        for row in rows:
            data = self.sym.rows.get(row, {})
            if field not in data:
                return None
            values = data[field] if members else [data[field]]
            if not isinstance(values, list) or any(v.__hash__ is None for v in values):
                return None
            for value in dict.fromkeys(values):  # a row once, however often it holds one
                groups.setdefault(value, []).append(row)
        return {value: tuple(group) for value, group in groups.items()}

    def picked(self, e: ast.Comprehension, scope: Scope) -> str | None:
        """A comprehension over a table's rows picked by a field (`picks`) walks only the
        rows of the value's group: the part of the test they all pass is not worked out
        (it can neither fail nor charge the budget), and the value is read once, not at each
        row. None when the comprehension is not such."""
        picks = self.picks(e)
        if picks is None:
            return None
        groups, value, rest = picks
        comp = e.fors[0]
        inner = scope.inner([comp.name])
        src = f"{self.const(groups, 'p')}.get({self.x(value, scope)}, ())"
        cond = f" if {self.x(_chain(rest), inner)}" if rest else ""
        return f"{self.x(e.expr, inner)} for v_{comp.name} in {src}{cond}"

    def row_walk(self, e: ast.Comprehension, scope: Scope) -> str | None:
        """A comprehension of one `for` over the values of a variable's last key (a map's
        nodes, a table's rows, an enum's values, in their order) whose test begins with a
        comparison of the variable's cell at that item (`[t for t in nodes(m) if v[p, t] >
        0]`): it walks the variable's row, a slice of its cells, beside the items, so a cell is
        read without working out its position. The row's start is worked out once, before
        the walk: from the keys before the last one, names from outside the comprehension or
        written values, which every item's test would have read first. None when the
        comprehension is not such (or the code is plain, `fold` off)."""
        if not self.fold or len(e.fors) != 1 or e.cond is None:
            return None
        comp = e.fors[0]
        it = self._listed_call(comp.iter)
        if it is None:
            return None
        items = self.listed_items(it)
        first = _conjuncts(e.cond)[0]
        if not items or not (isinstance(first, ast.BinOp) and first.op in _COMPARISONS):
            return None
        # the cell is what each item's test reads first, so the row's start fails (if it
        # does) as the first item's test would
        cell = first.left
        if not self._row_cell(cell, comp, items, scope):
            return None
        inner = scope.inner([comp.name])
        name = f"_w{len(scope.cells)}"
        inner.cells[id(cell)] = name
        return (
            f"{self.x(e.expr, inner)} for v_{comp.name}, {name} in zip({self.listed(it)}, "
            f"{self._row(cell, comp, items, scope)}) if {self.x(e.cond, inner)}"
        )

    def row_read(self, e: ast.Comprehension, scope: Scope) -> str | None:
        """A comprehension of one `for` over the values of a variable's last key, with no
        test, whose value is the variable's cell at the item (`[v[p, c] for c in
        values(colour)]`): the variable's row, a slice of its cells, which holds the same
        values in the same order (`row_walk` says which cells qualify). None when the
        comprehension is not such (or the code is plain, `fold` off)."""
        if not self.fold or len(e.fors) != 1 or e.cond is not None:
            return None
        comp = e.fors[0]
        it = self._listed_call(comp.iter)
        if it is None:
            return None
        items = self.listed_items(it)
        if not items or not self._row_cell(e.expr, comp, items, scope):
            return None
        return self._row(e.expr, comp, items, scope)

    def _row(self, cell, comp: ast.CompFor, items: tuple, scope: Scope) -> str:
        """The slice of a variable's cells that `cell` reads along `comp`'s items (a
        `_row_cell`), its start worked out once, as the first item would work it out (so a
        fault there is the same fault)."""
        assert isinstance(cell, ast.IndexGet) and isinstance(cell.obj, ast.NameRef)
        at_first = scope.inner([comp.name])
        at_first.where[comp.name] = self.literal(items[0])
        at_first.walks[comp.name] = (items[0],)
        start = self.flat(self.sym.decls[cell.obj.name], cell.indices, at_first)
        end = f"{start} + {len(items)}" if start != "0" else str(len(items))
        return f"st.g[{self.sym.slot_of(cell.obj.name)}][{start}:{end}]"

    def _row_cell(self, e, comp: ast.CompFor, items: tuple, scope: Scope) -> bool:
        """Is `e` a state variable's cell whose last key is the comprehension's name, over
        `items` in their order, and whose other keys are names from outside it or written
        values (`row_walk`)?"""
        if not (isinstance(e, ast.IndexGet) and isinstance(e.obj, ast.NameRef)):
            return False
        if e.obj.name in scope.where:
            return False
        decl = self.sym.decls.get(e.obj.name)
        keys = self.sym.keys_of(decl) if decl is not None else ()
        if not keys or len(e.indices) != len(keys):
            return False
        last = e.indices[-1]
        if not (isinstance(last, ast.NameRef) and last.name == comp.name):
            return False
        if tuple(self.sym.domain(keys[-1])) != items:
            return False
        return all(
            (isinstance(i, ast.NameRef) and i.name != comp.name) or _small_literal(i)
            for i in e.indices[:-1]
        )

    def known_items(self, e, scope: Scope) -> tuple | None:
        """The items of the list `e` when compiling, if at most `WRITTEN_OUT`: an enum's
        values, a table's rows, a map's nodes, a `range` between two numbers written in the
        rules, a list of written values (`[1, -1]`), a `param`'s list; else None."""
        if isinstance(e, ast.CallExpr) and not e.base and not self.sym.kind.get(e.name):
            if e.name in ("nodes", "rows", "values"):
                listed = self.listed_items(e)
                return listed if len(listed) <= WRITTEN_OUT else None
            ends = self.written_range(e)
            if ends is not None:
                return tuple(range(*ends)) if ends[1] - ends[0] <= WRITTEN_OUT else None
        if isinstance(e, ast.ListLit):
            values = [_literal_value(item) for item in e.items]
            if len(values) > WRITTEN_OUT or any(v is _NOT_LITERAL for v in values):
                return None
            return tuple(values)
        items = self._param_items(e, scope)
        return items if items is not None and len(items) <= WRITTEN_OUT else None

    def literal(self, value: Any) -> str:
        """Python source for a constant: written out when it is a number, a text, a truth
        value or none; else a name bound to it (`const`)."""
        if value is None or type(value) in (int, str, bool):
            return repr(value)
        return self.const(value)

    def walked(self, e, scope: Scope) -> str:
        """Python source for a list that is only walked, never kept: the values of an enum,
        a table's rows or a map's nodes as the constant tuple itself, a node's neighbours as
        the map's own list of them, and a `range` between two numbers written in the rules
        (at most `_FEW_DICE` apart, uncharged like a few literal dice) as a Python range;
        anything else as its value."""
        if isinstance(e, ast.CallExpr) and not e.base and not self.sym.kind.get(e.name):
            if e.name in ("nodes", "rows", "values"):
                return self.listed(e)
            if e.name == "adjacent":  # the map's own list of the node's neighbours
                return f"_ADJ[{self.x(e.args[0], scope)}]"
            ends = self.written_range(e)
            if ends is not None and ends[1] - ends[0] <= _FEW_DICE:
                return f"range({ends[0]}, {ends[1]})"
        return self.x(e, scope)

    def listed(self, e: ast.CallExpr) -> str:
        """The constant tuple of a map's `nodes`, a table's `rows` or an enum's `values`."""
        return self.const(self.listed_items(e), "c")

    def listed_items(self, e: ast.CallExpr) -> tuple:
        """The items of a map's `nodes`, a table's `rows` or an enum's `values`, in order."""
        args = [a for a in e.args if not isinstance(a, ast.KwArg)]
        arg = args[0]
        assert isinstance(arg, ast.NameRef), "the checker allows only a name here"
        items = {"nodes": self.sym.map_nodes, "rows": self.sym.table_rows}.get(e.name)
        return tuple(items[arg.name] if items is not None else self.sym.decls[arg.name].values)

    def steady(self, expr, scope: Scope) -> bool:
        """Can nothing change the list `expr` gives while a loop walks it? True of a list
        built for the occasion, of a row's field and of a `param` (constants both), so the
        loop need not walk a snapshot of it."""
        if _fresh(expr) or isinstance(expr, ast.FieldGet):
            return True
        return (
            isinstance(expr, ast.NameRef)
            and expr.name not in scope.where
            and expr.name not in STATE_NAMES
            and self.sym.slot_of(expr.name) is None
            and self.sym.constant(expr.name) is not None
        )

    def length(self, expr, scope: Scope) -> int | None:
        """The number of items of the list `expr`, when the rules say it: a list written out,
        or a `param`'s."""
        if isinstance(expr, ast.ListLit):
            return len(expr.items)
        if self.steady(expr, scope) and isinstance(expr, ast.NameRef):
            value = self.sym.constant(expr.name)
            return len(value) if isinstance(value, (list, tuple)) else None
        return None

    def checked(self, a: str, b: str, op: str, helper: str) -> str:
        """`a op b` of two numbers, with the budget's size of numbers checked when an operand
        is past 64 bits, without a call when both are smaller. Operands that are plain names
        or cells are read twice; others are bound once to names of their own (`_a3`, `_b3`),
        except in the list a comprehension walks, where Python allows no such binding and
        the helper is called."""
        if _PLAIN.match(a) and _PLAIN.match(b):
            return (
                f"({a} {op} {b} if -_T < {a} < _T and -_T < {b} < _T else {helper}(st, {a}, {b}))"
            )
        if self.walking:
            return f"{helper}(st, {a}, {b})"
        n = self.bound = self.bound + 1
        x, y = (v if _PLAIN.match(v) else f"_{c}{n}" for v, c in ((a, "a"), (b, "b")))
        tx, ty = (v if v == w else f"({w} := {v})" for v, w in ((a, x), (b, y)))
        # `&`, not `and`: both names are bound whichever way the test goes
        return (
            f"({x} {op} {y} if (-_T < {tx} < _T) & (-_T < {ty} < _T) else {helper}(st, {x}, {y}))"
        )

    def inlined(self, name: str, sources: list[str]) -> str | None:
        """A call of `fn` `name` with arguments `sources`, as its body with the arguments in
        place, when the body does a fixed amount of work (`inlinable`: no call of a `fn`, no
        comprehension, no dice; then a call's step of the work budget bounds nothing) and no
        argument that is more than a name is used twice; else None. One call fewer: derived
        values are most of the work of a big ruleset."""
        fn = self.sym.decls.get(name)
        if not isinstance(fn, ast.Fn):
            return None
        if name not in self._inlinable:
            self._inlinable[name] = inlinable(fn, self.sym)
        uses = self._inlinable[name]
        if uses is None:
            return None
        where = {}
        for param, source in zip(fn.params, sources):
            if uses.get(param.name, 0) > 1 and not _PLAIN.match(source):
                return None
            where[param.name] = source if _PLAIN.match(source) else f"({source})"
        inner = Scope()
        inner.where = where
        self._inlined.add(name)
        return f"({self.x(fn.body, inner)})"

    def inlined_fns(self) -> frozenset[str]:
        """The `fn`s that some call so far was compiled in place of (`inlined`)."""
        return frozenset(self._inlined)

    @on(ast.IfExpr)
    def x_IfExpr(self, e, scope):
        return f"({self.x(e.then, scope)} if {self.x(e.cond, scope)} else {self.x(e.other, scope)})"

    @on(ast.UnaryOp)
    def x_UnaryOp(self, e, scope):
        return (
            f"(not {self.x(e.operand, scope)})"
            if e.op == "not"
            else f"(-{self.x(e.operand, scope)})"
        )

    @on(ast.BinOp)
    def x_BinOp(self, e: ast.BinOp, scope):
        # the work budget (interpreter/core/budget.py) sees the operations whose result can
        # outgrow their operands when repeated: products, sums and differences of numbers
        # (one added to itself doubles), and lists joined. A sum with a literal grows by a
        # bit at most, so it is not checked.
        if e.op == "+" and may_be_list(self.typing.of(e)):
            return f"_join(st, {self.x(e.left, scope)}, {self.x(e.right, scope)})"
        if e.op in ("in", "not in"):
            return f"({self.x(e.left, scope)} {e.op} {self.read(e.right, scope)})"
        if e.op == "and" and self.fold:
            facts = self.bounds(e.left)
            if facts:  # the right side runs only where the left held: it knows its bounds
                inner = scope.inner([])
                for name, (lo, hi) in facts.items():
                    was = inner.ranges.get(name)
                    inner.ranges[name] = (max(lo, was[0]), min(hi, was[1])) if was else (lo, hi)
                return f"({self.x(e.left, scope)} and {self.x(e.right, inner)})"
        a, b = self.x(e.left, scope), self.x(e.right, scope)
        if e.op == "*" and not (self.bounded(e.left, scope) and self.bounded(e.right, scope)):
            return self.checked(a, b, "*", "_mul")
        if e.op in ("+", "-") and not (self.bounded(e.left, scope) or self.bounded(e.right, scope)):
            return self.checked(a, b, e.op, "_add" if e.op == "+" else "_sub")
        return f"({a} {e.op} {b})"

    def bounds(self, e) -> dict[str, tuple[int, int]]:
        """What the test `e` says, where it holds, of the numbers it compares with numbers
        written in the rules: by name, the range (from, to, not included) each is then in.
        A chain of `and` says what each of its parts says; a call of a plain `fn` whose
        arguments are names says what its body says of its parameters."""
        low: dict[str, int] = {}
        high: dict[str, int] = {}
        self._bounds(e, {}, low, high)
        return {name: (low[name], high[name]) for name in low.keys() & high.keys()}

    def _bounds(self, e, names: dict[str, str], low: dict, high: dict, depth: int = 0) -> None:
        if isinstance(e, ast.BinOp) and e.op == "and":
            self._bounds(e.left, names, low, high, depth)
            self._bounds(e.right, names, low, high, depth)
        elif isinstance(e, ast.BinOp) and e.op in _BOUNDS:
            left, right, op = e.left, e.right, e.op
            if isinstance(left, ast.IntLit):  # `0 <= x` is `x >= 0`
                left, right, op = right, left, _FLIPPED[op]
            if not (isinstance(left, ast.NameRef) and isinstance(right, ast.IntLit)):
                return
            if self.typing.of(left) != INT or (depth and left.name not in names):
                return  # in a `fn`'s body, only its parameters are the caller's names
            name, k = names.get(left.name, left.name), right.value
            if op in ("<", "<="):
                bound = k if op == "<" else k + 1
                high[name] = min(high.get(name, bound), bound)
            else:
                bound = k if op == ">=" else k + 1
                low[name] = max(low.get(name, bound), bound)
        elif isinstance(e, ast.CallExpr) and not e.base and depth < 4:
            fn = self.sym.decls.get(e.name)
            args = [a for a in e.args if not isinstance(a, ast.KwArg)]
            if not isinstance(fn, ast.Fn) or fn.kind != "fn" or fn.signature_only or fn.base:
                return
            if len(args) != len(fn.params) or not all(isinstance(a, ast.NameRef) for a in args):
                return
            inner = {
                p.name: names.get(a.name, a.name)
                for p, a in zip(fn.params, args)
                if isinstance(a, ast.NameRef) and (not depth or a.name in names)
            }
            self._bounds(fn.body, inner, low, high, depth + 1)

    @on(ast.FieldGet)
    def x_FieldGet(self, e: ast.FieldGet, scope):
        sides = self._sides(e)
        if sides is not None:
            first, second = sides if e.name == "up" else sides[::-1]
            flipped = f"st.g[{self.sym.slot_of(FLIPPED)}]"
            return f"_face(_R, {flipped}, {self.x(e.obj, scope)}, {first!r}, {second!r})"
        values = _known_values(e.obj, scope)
        if values is not None and len(values) == 1 and values[0].__class__ is str:
            data = self.sym.rows.get(values[0], {})  # a written-out item's row (`written_out`)
            if e.name in data and (data[e.name] is None or type(data[e.name]) in (int, str, bool)):
                return repr(data[e.name])
        return f"_R[{self.x(e.obj, scope)}][{e.name!r}]"

    def _sides(self, e: ast.FieldGet) -> tuple[str, str] | None:
        """The faces of a two-sided card when `e` reads its face up or down (`c.up`)."""
        if e.name not in ("up", "down"):
            return None
        t = self.typing.of(e.obj)
        record = self.sym.decls.get(t.name) if isinstance(t, Named) else None
        if not isinstance(record, ast.Record) or record.sides is None:
            return None
        if any(f.name == e.name for f in record.fields):
            return None
        return record.sides

    @on(ast.IndexGet)
    def x_IndexGet(self, e: ast.IndexGet, scope):
        cell = scope.cells.get(id(e))
        if cell is not None:  # a cell of the row a comprehension walks (`row_walk`)
            return cell
        if isinstance(e.obj, ast.NameRef) and e.obj.name not in scope.where:
            decl = self.sym.decls.get(e.obj.name)
            keys = self.sym.keys_of(decl) if decl is not None else ()
            if keys:
                item = "".join(f"[{self.x(i, scope)}]" for i in e.indices[len(keys) :])
                flat = self.flat(decl, e.indices[: len(keys)], scope)
                return f"st.g[{self.sym.slot_of(e.obj.name)}][{flat}]{item}"
        value = self.known_value(e, scope)  # a written-out item's item, `values(k)[0]`
        if value is None or type(value) in (int, str, bool):
            return repr(value)
        return f"{self.read(e.obj, scope)}[{self.x(e.indices[0], scope)}]"

    def bounded(self, e, scope: Scope) -> bool:
        """Is the size of `e` bounded by the rules' text alone: a small number (`small`), or
        sums, differences and products of such numbers, or a choice between two such (at
        most 16 bits per number in it)?
        A product of two such is not checked, nor a sum with one: repeating it in a loop
        grows a number by a bounded amount each time, never doubles it."""
        if isinstance(e, ast.BinOp) and e.op in ("+", "-", "*"):
            return self.bounded(e.left, scope) and self.bounded(e.right, scope)
        if isinstance(e, ast.IfExpr):  # `if c then 1 else 0`
            return self.bounded(e.then, scope) and self.bounded(e.other, scope)
        return self.small(e, scope)

    def small(self, e, scope: Scope) -> bool:
        """Is `e` certainly a number of at most 16 bits? A literal (or its negation), or a
        local of the procedure that only ever holds such numbers or lists of them
        (`small_names`), or an item of such a list."""
        if isinstance(e, ast.UnaryOp) and e.op == "-":
            return self.small(e.operand, scope)
        values = _known_values(e, scope)
        if isinstance(values, range):  # its ends say it: a range may be long
            values = (values[0], values[-1]) if values else ()
        if values is not None and all(type(v) is int and abs(v) < 1 << 16 for v in values):
            return True
        if isinstance(e, ast.IndexGet) and len(e.indices) == 1:
            e = e.obj
        if isinstance(e, ast.NameRef):
            return e.name in self.small_names and scope.where.get(e.name, "").startswith("L[")
        return _small_literal(e)

    def read(self, e, scope: Scope) -> str:
        """Python source for a list that is only read where it stands (indexed, measured,
        searched): a map's nodes, a table's rows or an enum's values are their constant
        tuple, not a copy of it."""
        if isinstance(e, ast.CallExpr) and e.name in ("nodes", "rows", "values") and not e.base:
            if self.sym.kind.get(e.name) is None:  # the built-in, not a rule of that name
                return self.listed(e)
        return self.x(e, scope)

    @on(ast.CallExpr)
    def x_CallExpr(self, e: ast.CallExpr, scope):
        args = [a for a in e.args if not isinstance(a, ast.KwArg)]
        if e.base or self.sym.kind.get(e.name) == "fn":
            name = fn_name(self.rule[0], self.rule[1] + 1) if e.base else fn_name(e.name, 0)
            sources = [self.x(a, scope) for a in args]
            inline = None if e.base else self.inlined(e.name, sources)
            if inline is not None:
                return inline
            if e.base and self.rule_kind in ("condition", "measure"):
                sources = ["v_self", "v_this"] + sources
            return f"{name}(st" + "".join(", " + source for source in sources) + ")"
        if self.sym.kind.get(e.name) in (*ast.TAGGED_KINDS, "enum value"):  # tag, arguments
            return "[" + ", ".join([repr(e.name)] + [self.owned(a, scope) for a in args]) + "]"
        if e.name == "affordable":
            pool = args[1]
            if isinstance(pool, ast.NameRef):
                pool = ast.IndexGet(pool, (), span=pool.span)
            assert isinstance(pool, ast.IndexGet) and isinstance(pool.obj, ast.NameRef)
            cells = self.pool_cells(ast.Target(pool.obj.name, pool.indices, span=pool.span), scope)
            return f"_affordable({cells}, {self.x(args[0], scope)})"
        if e.name in ("nodes", "rows", "values"):
            return f"list({self.listed(e)})"
        if e.name == "len":
            return f"len({self.read(args[0], scope)})"
        if e.name == "player" and isinstance(args[0], ast.IntLit):
            players = self.sym.program.decls.get("players")
            if isinstance(players, ast.Players) and 1 <= args[0].value <= players.lo:
                return str(args[0].value - 1)  # a seat every game of this ruleset has
        if e.name in ("any", "all"):
            quantified = self.quantified(e.name, args[0], scope)
            if quantified is not None:
                return quantified
        if e.name == "distance":
            table = all_pairs_distance(self.sym.adjacency)
            self.env.update(_DIST=table, _FAR=len(table) + 1)
        sources = [self.x(a, scope) for a in args]
        return BUILTINS[e.name].template.format(*sources, args=", ".join(sources))

    def quantified(self, name: str, e, scope: Scope) -> str | None:
        """`any` or `all` of a list display or a comprehension, which stops at the first item
        that decides it, as `or` and `and` do: the items after it are not worked out. A
        display, or a comprehension written out (`written_out`), is a chain of `or` or
        `and`; another comprehension is a generator. None for any other list, whose items
        all exist already, and for one that rolls dice: every die of it is rolled."""
        if next(ast.rolls(e), None) is not None:
            return None
        parts: list[tuple[str, str | None]] | None
        if isinstance(e, ast.ListLit):
            parts = [(self.x(item, scope), None) for item in e.items]
        elif isinstance(e, ast.Comprehension):
            parts = self.written_out(e, scope)
            if parts is None:
                return f"{name}({self.walk(e, scope)})"
        else:
            return None
        if not parts:
            return repr(name == "all")
        joiner = " or " if name == "any" else " and "
        return "(" + joiner.join(_decided(name, value, test) for value, test in parts) + ")"

    @on(ast.RollDice)
    def x_RollDice(self, e: ast.RollDice, scope):
        if e.count == 1:
            return f"_die(st, {e.sides})"
        if e.count > _FEW_DICE:  # many dice are charged to the work budget as elements
            return f"_dice(st, {e.count}, {e.sides})"
        return f"[_die(st, {e.sides}) for _ in range({e.count})]"

    @on(ast.RollTable)
    def x_RollTable(self, e: ast.RollTable, scope):
        count, sides, lookup = self.sym.roll_table(e.table)
        table = self.const(tuple(lookup), "t")
        if count == 1:
            return f"{table}[_die(st, {sides})]"
        return f"{table}[sum(_die(st, {sides}) for _ in range({count}))]"


def all_pairs_distance(adjacency: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    result: dict[str, dict[str, int]] = {}
    for start in adjacency:
        dist = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in adjacency[here]:
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        result[start] = dist
    return result
