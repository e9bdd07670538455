"""Stage 1: text -> AST. The only module that touches Lark.

`parse(text, path)` returns an `ast.File` or raises `SyntaxProblem` with a labelled diagnostic.
"""

from __future__ import annotations

import functools
import re

import attrs
import lark
from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dsl.errors import Span, SyntaxProblem, diag
from dsl.resources import grammar_text
from dsl.syntax import ast, cache
from dsl.syntax.examples import LABELLED_EXAMPLES, expected_words
from dsl.syntax.limits import check_size, check_tree


@functools.cache
def parser() -> lark.Lark:
    return lark.Lark(
        grammar_text(),
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        # Lark keeps the built tables in a temporary file keyed by the grammar's hash:
        # building them takes about 0.3 s, loading them a tenth of that
        cache=True,
    )


class _Cite(str):
    pass


class _Vis(str):
    pass


class _Sides(tuple):
    pass


class _Keys(tuple):
    pass


class _At(str):
    """An effect's `at m`."""


class _During(tuple):
    """A standing option's `during a, b`."""


class _Args(tuple):
    """A trigger's `(args)`."""


class _Params(tuple):
    """A moment's or an enum value's `(params)`."""


class _Binds(tuple):
    """A match arm's `(names)`."""


@attrs.frozen
class _EnumValue:
    """One value of an enum: its name, what it carries (None: nothing), its words."""

    name: str
    params: tuple | None
    title: str | None


@attrs.frozen
class _Order:
    """A trigger's `ordered by q`."""

    who: object


class _Copies(int):
    pass


class _Range(tuple):
    pass


class _Reconstructed(tuple):  # (reason or None,)
    pass


class _Dice(str):
    pass


class _ZoneKind(tuple):
    pass


def _pick(children, kind, default=None):
    for child in children:
        if isinstance(child, kind):
            return child
    return default


def _words(children) -> str | None:
    """The text of an effect, a condition or a moment (its one STRING after the name)."""
    texts = [c for c in children if isinstance(c, Token) and c.type == "STRING"]
    return _unquote(texts[0]) if texts else None


def _unquote(token: Token | str) -> str:
    return str(token)[1:-1]


@v_args(meta=True)
class _Builder(Transformer):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    # -------------------------------------------------------------- file
    def start(self, meta, ch):
        header, items = ch[0], tuple(ch[1:])
        kind, name, extends, cite, scenarios, *more = header
        if kind == "scenarios":  # a scenario file's items are the libraries it imports
            items, more = more[1], []
        return ast.File(
            kind,
            name,
            extends,
            cite,
            items,
            scenarios,
            span=self._span(meta),
            combines=tuple(more[0]) if more else (),
        )

    def ruleset_header(self, meta, ch):
        return ("ruleset", _unquote(ch[0]), None, _pick(ch, _Cite), ())

    def variant_header(self, meta, ch):
        names = [_unquote(c) for c in ch if isinstance(c, Token) and c.type == "STRING"]
        return ("variant", names[0], names[1], _pick(ch, _Cite), (), names[2:])

    def library_header(self, meta, ch):
        return ("library", _unquote(ch[0]), None, None, ())

    def scenario_file(self, meta, ch):
        scenarios = tuple(c for c in ch[1:] if isinstance(c, ast.Scenario))
        imports = tuple(c for c in ch[1:] if isinstance(c, ast.Import))
        return ("scenarios", _unquote(ch[0]), None, None, scenarios, (), imports)

    def cite(self, meta, ch):
        return _Cite(str(ch[0])[1:].strip('"'))

    # -------------------------------------------------------------- declarations
    def import_decl(self, meta, ch):
        return ast.Import(_unquote(ch[0]), span=self._span(meta))

    def title_decl(self, meta, ch):
        return ast.Title(_unquote(ch[0]), span=self._span(meta))

    def source_decl(self, meta, ch):
        return ast.Source(_unquote(ch[0]), span=self._span(meta))

    def players_decl(self, meta, ch):
        lo = int(ch[0])
        hi = int(ch[1]) if ch[1] is not None else lo
        return ast.Players(lo, hi, _pick(ch, _Cite), span=self._span(meta))

    def bound_decl(self, meta, ch):
        return ast.Bound(int(ch[0]), _pick(ch, _Cite), span=self._span(meta))

    def param_decl(self, meta, ch):
        return ast.Param(str(ch[0]), ch[1], ch[2], _pick(ch[3:], _Cite), span=self._span(meta))

    def enum_decl(self, meta, ch):
        values = [c for c in ch[1:] if isinstance(c, _EnumValue)]
        return ast.Enum(
            str(ch[0]),
            tuple(v.name for v in values),
            _pick(ch, _Cite),
            span=self._span(meta),
            titles=tuple((v.name, v.title) for v in values if v.title is not None),
            payloads=tuple((v.name, v.params) for v in values if v.params is not None),
        )

    def enum_value(self, meta, ch):
        params = _pick(ch, _Params)
        title = next((_unquote(c) for c in ch if isinstance(c, Token) and c.type == "STRING"), None)
        return _EnumValue(str(ch[0]), tuple(params) if params is not None else None, title)

    def enum_params(self, meta, ch):
        return _Params(ch[0] or ())

    def record_kw(self, meta, ch):
        return str(ch[0])

    def record_decl(self, meta, ch):
        fields = tuple(c for c in ch if isinstance(c, ast.Field))
        sides = _pick(ch, _Sides)
        return ast.Record(
            ch[0],
            str(ch[1]),
            fields,
            _pick(ch, _Cite),
            span=self._span(meta),
            sides=tuple(sides) if sides is not None else None,
        )

    def sides(self, meta, ch):
        return _Sides((str(ch[0]), str(ch[1])))

    def field(self, meta, ch):
        return ast.Field(str(ch[0]), ch[1], span=self._span(meta), default=ch[2])

    def table_decl(self, meta, ch):
        rows = tuple(c for c in ch if isinstance(c, ast.Row))
        marker = _pick(ch, _Reconstructed)
        return ast.Table(
            str(ch[0]),
            str(ch[1]),
            _pick(ch, _Dice),
            rows,
            _pick(ch, _Cite),
            span=self._span(meta),
            reconstructed=marker is not None,
            reason=marker[0] if marker is not None else None,
        )

    def dice_spec(self, meta, ch):
        return _Dice(str(ch[0]))

    def row(self, meta, ch):
        rng = _pick(ch, _Range)
        rest = [c for c in ch if not isinstance(c, _Range)]
        name = str(rest[0])
        title = (
            _unquote(rest[1]) if isinstance(rest[1], Token) and rest[1].type == "STRING" else None
        )
        args = _pick(rest, list) or []
        lo, hi = rng if rng else (None, None)
        marker = _pick(rest, _Reconstructed)
        return ast.Row(
            lo,
            hi,
            name,
            title,
            tuple(args),
            _pick(rest, _Copies),
            _pick(rest, _Cite),
            span=self._span(meta),
            reconstructed=marker is not None,
            reason=marker[0] if marker is not None else None,
        )

    def reconstructed(self, meta, ch):
        parts = [_unquote(c) for c in ch if c is not None]
        return _Reconstructed(("".join(parts) if parts else None,))

    def row_range(self, meta, ch):
        lo = int(ch[0])
        hi = int(ch[1]) if len(ch) > 1 and ch[1] is not None else lo
        return _Range((lo, hi))

    def copies(self, meta, ch):
        return _Copies(int(ch[0]))

    def map_decl(self, meta, ch):
        items = tuple(c for c in ch if isinstance(c, (ast.MapNode, ast.MapEdge)))
        marker = _pick(ch, _Reconstructed)
        return ast.Map(
            str(ch[0]),
            items,
            _pick(ch, _Cite),
            span=self._span(meta),
            reconstructed=marker is not None,
            reason=marker[0] if marker is not None else None,
        )

    def map_node(self, meta, ch):
        title = _unquote(ch[1]) if len(ch) > 1 and isinstance(ch[1], Token) else None
        return ast.MapNode(str(ch[0]), title, _pick(ch, _Cite), span=self._span(meta))

    def map_edge(self, meta, ch):
        names = [str(c) for c in ch if isinstance(c, Token)]
        return ast.MapEdge(names[0], tuple(names[1:]), _pick(ch, _Cite), span=self._span(meta))

    def var_decl(self, meta, ch):
        keys = _pick(ch, _Keys, _Keys())
        rest = [c for c in ch[1:] if not isinstance(c, (_Keys, _Cite, _Vis))]
        return ast.Var(
            str(ch[0]),
            tuple(keys),
            rest[0],
            rest[1],
            _pick(ch, _Vis, "public"),
            _pick(ch, _Cite),
            span=self._span(meta),
        )

    def zone_kind(self, meta, ch):
        kind = str(ch[0])
        return _ZoneKind((kind, int(ch[1]) if len(ch) > 1 else None))

    def zone_decl(self, meta, ch):
        keys = _pick(ch, _Keys, _Keys())
        kind, size = _pick(ch, _ZoneKind)
        elem = _pick(ch, (ast.TypeName, ast.TypeList))
        return ast.Zone(
            str(ch[0]),
            tuple(keys),
            kind,
            size,
            elem,
            _pick(ch, _Vis, "public"),
            _pick(ch, _Cite),
            span=self._span(meta),
        )

    def pool_decl(self, meta, ch):
        keys = _pick(ch, _Keys, _Keys())
        names = [c for c in ch if isinstance(c, Token)]
        rest = [
            c for c in ch[1:] if not isinstance(c, (_Keys, _Cite, _Vis, Token)) and c is not None
        ]
        return ast.Pool(
            str(ch[0]),
            tuple(keys),
            str(names[1]),
            rest[0] if rest else None,
            _pick(ch, _Vis, "public"),
            _pick(ch, _Cite),
            span=self._span(meta),
        )

    def keys(self, meta, ch):
        return _Keys(ch)

    def key_name(self, meta, ch):
        return ast.KeyName(str(ch[0]), span=self._span(meta))

    def key_range(self, meta, ch):
        return ast.KeyRange(int(ch[0]), int(ch[1]), span=self._span(meta))

    def visibility(self, meta, ch):
        return _Vis(str(ch[0]))

    def view_decl(self, meta, ch):
        return ast.View(tuple(ch), span=self._span(meta))

    def view_group(self, meta, ch):
        return ast.ViewGroup(_unquote(ch[0]), tuple(str(n) for n in ch[2:]), str(ch[1] or "all"))

    def fn_decl(self, meta, ch):
        return ast.Fn(
            str(ch[0]), tuple(ch[1] or ()), ch[2], ch[-1], _pick(ch, _Cite), span=self._span(meta)
        )

    def condition_decl(self, meta, ch, kind="condition"):
        body = ch[-1]
        return ast.Fn(
            str(ch[0]),
            tuple(ch[1] or ()),
            None,
            body
            if body is not None
            else ast.BoolLit(True, span=self._span(meta))
            if kind == "condition"
            else ast.IntLit(0, span=self._span(meta)),
            _pick(ch, _Cite),
            span=self._span(meta),
            kind=kind,
            template=_words(ch[1:]),
            signature_only=body is None,
        )

    def measure_decl(self, meta, ch):
        return self.condition_decl(meta, ch, kind="measure")

    def proc_kw(self, meta, ch):
        return str(ch[0])

    def proc_decl(self, meta, ch):
        return ast.Proc(
            ch[0],
            str(ch[1]),
            tuple(ch[2] or ()),
            _pick(ch, ast.Block),
            _pick(ch, _Cite),
            span=self._span(meta),
        )

    def whenever_decl(self, meta, ch):
        return ast.Proc(
            "whenever",
            str(ch[0]),
            tuple(ch[1] or ()),
            ch[-1],
            _pick(ch, _Cite),
            span=self._span(meta),
            when=ch[-2],
        )

    def option_decl(self, meta, ch):
        during = _pick(ch[2:], _During)
        return ast.Proc(
            "option",
            str(ch[0]),
            tuple(ch[1] or ()),
            ch[-1],
            _pick(ch[2:], _Cite),
            span=self._span(meta),
            template=_words(ch[2:-2]),
            when=ch[-2],
            during=tuple(during) if during is not None else (),
        )

    def window_decl(self, meta, ch):
        return ast.Proc(
            "window",
            str(ch[0]),
            (ch[1],),
            ch[-1],
            _pick(ch[5:], _Cite),
            span=self._span(meta),
            at=str(ch[4]),
            who=ch[2],
            side=str(ch[3]),
        )

    def window_side(self, meta, ch):
        return str(ch[0])

    def option_during(self, meta, ch):
        return _During(tuple(str(n) for n in ch))

    def effect_decl(self, meta, ch):
        body = _pick(ch, ast.Block)
        at = _pick(ch[2:], _At)
        return ast.Proc(
            "effect",
            str(ch[0]),
            tuple(ch[1] or ()),
            body if body is not None else ast.Block((), span=self._span(meta)),
            _pick(ch[2:], _Cite),
            span=self._span(meta),
            template=_words(ch[1:]),
            signature_only=body is None,
            at=str(at) if at is not None else None,
        )

    def params(self, meta, ch):
        return list(ch)

    def param(self, meta, ch):
        return ast.ParamDecl(str(ch[0]), ch[1], span=self._span(meta))

    def setup_decl(self, meta, ch):
        return ast.Setup(_pick(ch, ast.Block), _pick(ch, _Cite), span=self._span(meta))

    def round_decl(self, meta, ch):
        return ast.Round(int(ch[0]), _pick(ch, ast.Block), _pick(ch, _Cite), span=self._span(meta))

    def outcome_decl(self, meta, ch):
        return ast.Outcome(
            str(ch[0]), str(ch[1]), ch[-1], _pick(ch[2:], _Cite), span=self._span(meta)
        )

    def outcome_kind(self, meta, ch):
        return str(ch[0])

    def invariant_decl(self, meta, ch):
        return ast.Invariant(str(ch[0]), ch[-1], _pick(ch, _Cite), span=self._span(meta))

    def note_kw(self, meta, ch):
        return str(ch[0])

    def note_decl(self, meta, ch):
        text = "".join(_unquote(c) for c in ch[2:] if isinstance(c, Token) and c.type == "STRING")
        cites = [c for c in ch[2:] if isinstance(c, _Cite)]
        printed, fix = ch[-1] if isinstance(ch[-1], tuple) else (None, None)
        return ast.Note(
            ch[0],
            str(ch[1]),
            text,
            cites[0] if cites else None,
            span=self._span(meta),
            also=tuple(cites[1:]),
            printed=printed,
            fix=fix,
        )

    def note_fix(self, meta, ch):
        strings = [_unquote(c) for c in ch if isinstance(c, Token)]
        return (strings[0], strings[1]) if len(strings) == 2 else (None, strings[0])

    def type_name(self, meta, ch):
        return ast.TypeName(str(ch[0]), span=self._span(meta))

    def type_list(self, meta, ch):
        return ast.TypeList(ch[0], span=self._span(meta))

    # -------------------------------------------------------------- overlays
    def set_overlay(self, meta, ch):
        return ast.SetParam(str(ch[0]), ch[1], _pick(ch, _Cite), span=self._span(meta))

    def replace_overlay(self, meta, ch):
        return ast.Replace(ch[0], span=self._span(meta))

    def add_overlay(self, meta, ch):
        return ast.AddDecl(ch[0], span=self._span(meta))

    def add_row_overlay(self, meta, ch):
        return ast.AddRow(str(ch[0]), ch[1], span=self._span(meta))

    def remove_overlay(self, meta, ch):
        return ast.RemoveDecl(str(ch[0]), span=self._span(meta))

    def remove_note_overlay(self, meta, ch):
        return ast.RemoveDecl(f"{ch[0]}:{ch[1]}", span=self._span(meta))

    def remove_row_overlay(self, meta, ch):
        return ast.RemoveRow(str(ch[0]), str(ch[1]), span=self._span(meta))

    # -------------------------------------------------------------- statements
    def block(self, meta, ch):
        return ast.Block(tuple(ch), span=self._span(meta))

    def let_stmt(self, meta, ch):
        return ast.Let(str(ch[0]), ch[1], span=self._span(meta))

    def assign_stmt(self, meta, ch):
        return ast.Assign(ch[0], str(ch[1]), ch[2], span=self._span(meta))

    def target(self, meta, ch):
        return ast.Target(
            str(ch[0]), tuple(c for c in ch[1:] if c is not None), span=self._span(meta)
        )

    def if_stmt(self, meta, ch):
        branches = [(ch[0], ch[1])]
        otherwise = None
        for part in ch[2:]:
            if isinstance(part, tuple):
                branches.append(part)
            else:
                otherwise = part
        return ast.If(tuple(branches), otherwise, span=self._span(meta))

    def match_stmt(self, meta, ch):
        arms = tuple(c for c in ch[1:] if isinstance(c, ast.MatchArm))
        otherwise = next((c for c in ch[1:] if isinstance(c, ast.Block)), None)
        return ast.Match(ch[0], arms, otherwise, span=self._span(meta))

    def match_arm(self, meta, ch):
        binds = ch[1] if isinstance(ch[1], _Binds) else _Binds()
        return ast.MatchArm(str(ch[0]), tuple(binds), ch[-1], span=self._span(meta))

    def match_binds(self, meta, ch):
        return _Binds(str(c) for c in ch if c is not None)

    def elif_part(self, meta, ch):
        return (ch[0], ch[1])

    def else_part(self, meta, ch):
        return ch[0]

    def for_stmt(self, meta, ch):
        return ast.For(str(ch[0]), ch[1], ch[2], span=self._span(meta))

    def repeat_stmt(self, meta, ch):
        return ast.Repeat(ch[0], ch[1], span=self._span(meta))

    def simultaneously_stmt(self, meta, ch):
        return ast.Simultaneously(ch[0], span=self._span(meta))

    def while_stmt(self, meta, ch):
        bound = int(ch[1]) if ch[1] is not None else None
        return ast.While(ch[0], bound, ch[2], span=self._span(meta))

    def outcry_stmt(self, meta, ch):
        return ast.Outcry(str(ch[0]), ch[1], ch[2], int(ch[3]), ch[4], span=self._span(meta))

    def choose_stmt(self, meta, ch, always=False):
        prompt = _unquote(ch[3]) if ch[3] is not None else None
        return ast.Choose(
            str(ch[0]),
            ch[1],
            ch[2],
            prompt,
            _pick(ch[6:], _Cite),
            span=self._span(meta),
            always=always,
            secret=ch[5] is not None,
            id=ch[4],
        )

    def ask_stmt(self, meta, ch):
        return self.choose_stmt(meta, ch, always=True)

    def agree_stmt(self, meta, ch):
        prompt = _unquote(ch[4]) if ch[4] is not None else None
        return ast.Agree(
            str(ch[0]),
            ch[1],
            ch[2],
            int(ch[3]),
            prompt,
            _pick(ch[6:], _Cite),
            span=self._span(meta),
            id=ch[5],
        )

    def flip_stmt(self, meta, ch):
        return ast.Flip(ch[0], span=self._span(meta))

    def reveal_stmt(self, meta, ch):
        return ast.Reveal(ch[0], ch[1], span=self._span(meta))

    def negotiate_stmt(self, meta, ch):
        prompt = _unquote(ch[5]) if ch[5] is not None else None
        return ast.Negotiate(
            str(ch[0]),
            ch[1],
            ch[2],
            ch[3],
            int(ch[4]),
            prompt,
            _pick(ch[7:], _Cite),
            span=self._span(meta),
            id=ch[6],
        )

    def site_id(self, meta, ch):
        return str(ch[0])

    def call_stmt(self, meta, ch):
        return ast.CallStmt(
            str(ch[0]), tuple(ch[1] or ()), _pick(ch[2:], _Cite), span=self._span(meta)
        )

    def add_stmt(self, meta, ch):
        return ast.AddTo(ch[0], ch[1], span=self._span(meta))

    def remove_stmt(self, meta, ch):
        return ast.RemoveFrom(ch[0], ch[1], span=self._span(meta))

    def move_stmt(self, meta, ch):
        return ast.Move(ch[0], ch[1], ch[2], span=self._span(meta))

    def shuffle_stmt(self, meta, ch):
        return ast.Shuffle(ch[0], span=self._span(meta))

    def draw_stmt(self, meta, ch):
        return ast.Draw(ch[0], ch[1], ch[2], span=self._span(meta))

    def end_stmt(self, meta, ch):
        return ast.EndGame(ch[0], _pick(ch[1:], _Cite), span=self._span(meta))

    def log_stmt(self, meta, ch):
        to, text, *pairs = ch  # `to` is None without `log to`
        names = tuple(n for n, _e in pairs)
        return ast.Log(
            _unquote(text),
            tuple(e for _n, e in pairs),
            span=self._span(meta),
            # with no value named, the empty tuple (the node's default)
            names=names if any(n is not None for n in names) else (),
            to=to,
        )

    def log_to(self, meta, ch):
        return ch[0]

    def log_arg(self, meta, ch):
        return (None if ch[0] is None else str(ch[0]), ch[1])

    def spend_stmt(self, meta, ch):
        return ast.Spend(ch[0], ch[1], ch[2], _pick(ch[3:], _Cite), span=self._span(meta))

    def trigger_stmt(self, meta, ch):
        args = _pick(ch, _Args, _Args())
        order = _pick(ch, _Order)
        rest = [c for c in ch[1:] if not isinstance(c, (_Args, _Order))]
        # without `by`, the effects are nobody's: `self` is none in them
        by = rest[1] if rest[1] is not None else ast.NoneLit(span=self._span(meta))
        return ast.Trigger(
            str(ch[0]),
            rest[0],
            by,
            _pick(rest[2:], _Cite),
            span=self._span(meta),
            args=tuple(args),
            order=order.who if order is not None else None,
        )

    def raise_stmt(self, meta, ch):
        """`raise m(args)`: a trigger of m for no items, by nobody: its windows open."""
        span = self._span(meta)
        return ast.Trigger(
            str(ch[0]),
            ast.ListLit((), span=span),
            ast.NoneLit(span=span),
            _pick(ch[1:], _Cite),
            span=span,
            args=tuple(_pick(ch, _Args, _Args())),
        )

    def trigger_args(self, meta, ch):
        return _Args(ch[0] or ())

    def trigger_order(self, meta, ch):
        return _Order(ch[0])

    def moment_params(self, meta, ch):
        return _Params(ch[0] or ())

    def effect_at(self, meta, ch):
        return _At(str(ch[0]))

    def moment_decl(self, meta, ch):
        return ast.Moment(
            str(ch[0]),
            _words(ch[1:]),
            _pick(ch[1:], _Cite),
            span=self._span(meta),
            params=tuple(_pick(ch, _Params, _Params())),
        )

    def perform_stmt(self, meta, ch):
        return ast.Perform(ch[0], ch[1], ch[2], _pick(ch[3:], _Cite), span=self._span(meta))

    def break_stmt(self, meta, ch):
        return ast.Break(span=self._span(meta))

    def pass_stmt(self, meta, ch):
        return ast.Pass(span=self._span(meta))

    def quiet_stmt(self, meta, ch):
        return ast.Quiet(ch[0], _pick(ch[1:], _Cite), span=self._span(meta))

    # -------------------------------------------------------------- expressions
    def if_expr(self, meta, ch):
        return ast.IfExpr(ch[0], ch[1], ch[2], span=self._span(meta))

    def or_op(self, meta, ch):
        return ast.BinOp("or", ch[0], ch[1], span=self._span(meta))

    def and_op(self, meta, ch):
        return ast.BinOp("and", ch[0], ch[1], span=self._span(meta))

    def not_op(self, meta, ch):
        return ast.UnaryOp("not", ch[0], span=self._span(meta))

    def neg_op(self, meta, ch):
        return ast.UnaryOp("-", ch[0], span=self._span(meta))

    def cmp_op(self, meta, ch):
        return ast.BinOp(str(ch[1]), ch[0], ch[2], span=self._span(meta))

    def in_op(self, meta, ch):
        return ast.BinOp("in", ch[0], ch[1], span=self._span(meta))

    def not_in_op(self, meta, ch):
        return ast.BinOp("not in", ch[0], ch[1], span=self._span(meta))

    def bin_op(self, meta, ch):
        return ast.BinOp(str(ch[1]), ch[0], ch[2], span=self._span(meta))

    def field_get(self, meta, ch):
        return ast.FieldGet(ch[0], str(ch[1]), span=self._span(meta))

    def index_get(self, meta, ch):
        return ast.IndexGet(ch[0], tuple(ch[1:]), span=self._span(meta))

    def call_expr(self, meta, ch):
        return ast.CallExpr(str(ch[0]), tuple(ch[1] or ()), span=self._span(meta))

    def args(self, meta, ch):
        return list(ch)

    def kwarg(self, meta, ch):
        return ast.KwArg(str(ch[0]), ch[1], span=self._span(meta))

    def int_lit(self, meta, ch):
        return ast.IntLit(int(ch[0]), span=self._span(meta))

    def str_lit(self, meta, ch):
        return ast.StrLit(_unquote(ch[0]), span=self._span(meta))

    def true_lit(self, meta, ch):
        return ast.BoolLit(True, span=self._span(meta))

    def false_lit(self, meta, ch):
        return ast.BoolLit(False, span=self._span(meta))

    def none_lit(self, meta, ch):
        return ast.NoneLit(span=self._span(meta))

    def name_ref(self, meta, ch):
        return ast.NameRef(str(ch[0]), span=self._span(meta))

    def list_lit(self, meta, ch):
        return ast.ListLit(tuple(c for c in ch if c is not None), span=self._span(meta))

    def comprehension(self, meta, ch):
        fors = tuple(c for c in ch[1:] if isinstance(c, ast.CompFor))
        cond = ch[-1] if not isinstance(ch[-1], ast.CompFor) else None
        return ast.Comprehension(ch[0], fors, cond, span=self._span(meta))

    def comp_for(self, meta, ch):
        return ast.CompFor(str(ch[0]), ch[1], span=self._span(meta))

    def roll_dice(self, meta, ch):
        count, sides = str(ch[0]).split("d")
        return ast.RollDice(int(count), int(sides), span=self._span(meta))

    def roll_table(self, meta, ch):
        return ast.RollTable(str(ch[0]), span=self._span(meta))

    # -------------------------------------------------------------- scenarios
    def scenario(self, meta, ch):
        name = _unquote(ch[0])
        fields = {"players": None, "seed": None, "position": None, "run": None}
        dice: list[int] = []
        strict: set[str] = set()
        steps: list[ast.ScenarioStep] = []
        for item in ch[1:]:
            if isinstance(item, _Cite) or item is None:
                continue
            if isinstance(item, (ast.ScenarioChoices, ast.ScenarioExpect)):
                steps.append(item)
                continue
            tag, value = item
            if tag in fields:
                fields[tag] = value
            elif tag == "dice":
                dice += value
            else:
                strict.add(value)
        return ast.Scenario(
            name,
            _pick(ch, _Cite),
            fields["players"],
            fields["seed"],
            fields["position"],
            fields["run"],
            tuple(dice),
            tuple(steps),
            tuple(p for p in ast.STRICT_PARTS if p in strict),
            span=self._span(meta),
        )

    def sc_players(self, meta, ch):
        return ("players", int(ch[0]))

    def sc_seed(self, meta, ch):
        return ("seed", int(ch[0]))

    def sc_position(self, meta, ch):
        return ("position", ch[0])

    def sc_run(self, meta, ch):
        return ("run", ast.CallStmt(str(ch[0]), tuple(ch[1] or ()), None, span=self._span(meta)))

    def sc_dice(self, meta, ch):
        return ("dice", [int(c) for c in ch])

    def sc_strict_dice(self, meta, ch):
        return ("strict", "dice")

    def sc_strict_shuffles(self, meta, ch):
        return ("strict", "shuffles")

    def sc_strict_choices(self, meta, ch):
        return ("strict", "choices")

    def sc_choices(self, meta, ch):
        return ast.ScenarioChoices(tuple(ch), span=self._span(meta))

    def sc_expect(self, meta, ch):
        label = _unquote(ch[2]) if ch[2] is not None else None
        return ast.ScenarioExpect("holds", ch[0], label, span=self._span(meta), printed=ch[1])

    def sc_expect_option(self, meta, ch):
        kind = " ".join(str(ch[0]).split())  # `not   offered` is `not offered`
        label = _unquote(ch[2]) if ch[2] is not None else None
        return ast.ScenarioExpect(kind, ch[1], label, span=self._span(meta))


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _soft_keyword(err: UnexpectedInput) -> bool:
    """A keyword where a name fits is a name: `score`, `players` or `map` may name a variable.

    LALR merges parser states, so after a block or an expression the lexer may take a word for
    a declaration keyword; when the parser then rejects it but would accept a name, feed it
    again as a name and go on.
    """
    if not isinstance(err, UnexpectedToken) or err.interactive_parser is None:
        return False
    token = err.token
    if token.type == "NAME" or not _IDENTIFIER.fullmatch(str(token)):
        return False
    if "NAME" not in err.interactive_parser.accepts():
        return False
    err.interactive_parser.feed_token(Token.new_borrow_pos("NAME", str(token), token))
    return True


def parse(text: str, path: str = "<string>") -> ast.File:
    """The file `text`, written at `path`. A text is parsed once per process (the tree is
    immutable), so the libraries that every variant of a game imports are parsed once, and
    its tree is kept on disk for the next run (`dsl.syntax.cache`)."""
    return _parse(text, path)


@functools.lru_cache(maxsize=256)
def _parse(text: str, path: str) -> ast.File:
    check_size(text, path)
    stored = cache.load(text, path)
    if stored is not None:
        return stored
    file = _parse_text(text, path)
    cache.store(text, path, file)
    return file


def _parse_text(text: str, path: str) -> ast.File:
    try:
        tree = parser().parse(text, on_error=_soft_keyword)
    except UnexpectedInput as err:
        raise SyntaxProblem(_syntax_diagnostic(err, text, path), {path: text}) from None
    check_tree(tree, text, path)
    return _Builder(path).transform(tree)


_OPENERS = {"{": "}", "(": ")", "[": "]"}


def _syntax_diagnostic(err: UnexpectedInput, text: str, path: str):
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or line <= 0:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    span = Span(path, line, col, line, col + 1)
    label = _label(err)
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        char = text[pos] if pos < len(text) else "end of file"
        return diag(
            "K001",
            label or f"unexpected character {char!r}",
            span,
            hint="check for a stray symbol or an unclosed string",
        )
    if isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    ):
        opener = _unclosed(text)
        message = label or "unexpected end of file"
        hint = None
        if opener is not None:
            (oline, ocol, ch, context) = opener
            message = label or f"the {context} opened with {ch!r} at line {oline} is never closed"
            hint = f"add {_OPENERS[ch]!r} to close it"
        return diag("K002", message, span, hint=hint)
    assert isinstance(err, UnexpectedToken)
    shown = expected_words(set(err.accepts or err.expected), _literals(), _after_name(err))
    message = label or f"unexpected {_pretty_token(err.token)}"
    return diag("K003", message, span, hint=f"expected {shown}" if shown else None)


@functools.cache
def _labels() -> dict[tuple[int, str], str]:
    """Parser state and token of each known-bad snippet -> its label.

    Keyed on the state on top of the parser's stack (not the whole stack, as Lark's
    `match_examples` does), so a snippet matches wherever in a file the same mistake happens.
    """
    found: dict[tuple[int, str], str] = {}
    for label, snippets in LABELLED_EXAMPLES.items():
        for snippet in snippets:
            try:
                parser().parse(snippet)
            except UnexpectedToken as err:
                found.setdefault((err.state.state_stack[-1], err.token.type), label)
            except UnexpectedInput:
                continue
    return found


def _label(err: UnexpectedInput) -> str | None:
    if not isinstance(err, UnexpectedToken) or err.state is None:
        return None
    return _labels().get((err.state.state_stack[-1], err.token.type))


def _pretty_token(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type == "NAME":
        return f"name {str(token)!r}"
    if token.type == "INT":
        return f"number {token}"
    if token.type == "STRING":
        return f"string {token}"
    if str(token).isalpha():
        return f"keyword {str(token)!r}"
    return repr(str(token))


@functools.cache
def _literals() -> dict[str, str]:
    """Each keyword or symbol terminal of the grammar -> its text."""
    return {t.name: t.pattern.value for t in parser().terminals if t.pattern.type == "str"}


def _after_name(err: UnexpectedToken) -> bool:
    """Does the token before the error end a name (so `(` calls and `[` indexes)?"""
    stack = err.state.value_stack if err.state is not None else []
    return bool(stack) and isinstance(stack[-1], Token) and stack[-1].type == "NAME"


def _unclosed(text: str):
    """The innermost bracket still open at the end of the text, with what it opened."""
    stack = []
    line, col = 1, 1
    in_string = in_comment = False
    words: list[str] = []
    word = ""
    for ch in text:
        if in_comment:
            if ch == "\n":
                in_comment = False
        elif in_string:
            if ch == '"':
                in_string = False
        elif ch == "#":
            in_comment = True
        elif ch == '"':
            in_string = True
        elif ch in _OPENERS:
            context = next((w for w in reversed(words[-6:]) if w in _BLOCK_WORDS), "block")
            stack.append((line, col, ch, f"{context} block" if ch == "{" else "bracket"))
        elif ch in _OPENERS.values() and stack:
            stack.pop()
        if ch.isalnum() or ch == "_":
            word += ch
        elif word:
            words.append(word)
            word = ""
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
    return stack[-1] if stack else None


_BLOCK_WORDS = {
    "setup",
    "round",
    "proc",
    "phase",
    "step",
    "if",
    "else",
    "elif",
    "for",
    "while",
    "repeat",
    "table",
    "map",
    "enum",
    "record",
    "card",
    "tile",
    "scenario",
    "position",
}
