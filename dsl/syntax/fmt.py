"""The formatter: AST -> canonical Knapper text (`knapper fmt`).

`format_file(parse(text))` parses back to an equal AST (tests check this on generated ASTs).
Comments are not part of the AST: `format_text` carries them over by line (before the node
that follows them, or at the end of the line where they stood), and checks that its output
means exactly what the input meant.

Each node class has its printer in one of the visitors of `PRINTERS` (declarations and
overlays, their parts, statements, expressions); the module's functions (`decl`, `stmt`,
`expr`, ...) hand a node to the right one.
"""

from __future__ import annotations

import re
from typing import Any

from dsl.errors import KnapperError, Span, diag
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, on

INDENT = "  "
WIDTH = 100
CONTINUE = INDENT * 3  # the indent of a long expression's continuation lines
_BARE_CITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*\Z")

# precedence levels, loosest first
P_IF, P_OR, P_AND, P_NOT, P_CMP, P_SUM, P_PROD, P_UNARY, P_POSTFIX, P_ATOM = range(10)
_CMP = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"}


def format_text(text: str, path: str = "<string>") -> str:
    """Format a file, keeping its comments; refuses to return text that means anything else."""
    from dsl.syntax.parse import parse  # only here: printing a tree needs no parser (nor Lark)

    tree = parse(text, path)
    out = format_file(tree, _Comments(text))
    if parse(out, path) != tree:
        raise KnapperError(
            diag(
                "K021",
                "formatting would change this file's meaning; it was left as it is",
                Span(path, 1, 1, 1, 1),
                hint="please report this as a bug in Knapper",
            )
        )
    return out


class _Comments:
    """The comments of a file, handed out in order as the printer reaches their lines.

    A comment on a line of its own goes before the next node printed; a comment after code
    goes at the end of the first line printed for the node that starts on its line. One
    `format_text` call makes one and passes it down to the printers of nodes that may have
    comments inside them (`comments=None`: print without comments, as `format_file(tree)`).
    """

    def __init__(self, text: str):
        self.items: list[tuple[int, str, bool]] = []
        for number, line in enumerate(text.split("\n"), start=1):
            in_string = False
            for col, ch in enumerate(line):
                if ch == '"':
                    in_string = not in_string
                elif ch == "#" and not in_string:
                    self.items.append((number, line[col:].rstrip(), bool(line[:col].strip())))
                    break

    def before(self, line: int, pad: str) -> str:
        out = []
        while self.items and self.items[0][0] < line:
            out.append(pad + self.items.pop(0)[1] + "\n")
        return "".join(out)

    def inside(self, first: int, last: int) -> bool:
        """Whether a comment waits on one of the lines first..last."""
        return any(first <= line <= last for line, _, _ in self.items)

    def trailing(self, line: int) -> str:
        if self.items and self.items[0][0] == line and self.items[0][2]:
            return "  " + self.items.pop(0)[1]
        return ""


def _placed(node, render, pad: str, comments: _Comments | None) -> str:
    """`render()` for `node`, with the comments that belong before it and on its first line.

    The comments before the node are taken before it is rendered, so that the node's own
    parts (a block's statements, a table's rows) cannot take them."""
    if comments is None or node.span.line <= 0:
        return render()
    lead = comments.before(node.span.line, pad)
    tail = comments.trailing(node.span.line)
    text = render()
    if tail:
        first, sep, rest = text.partition("\n")
        text = first + tail + sep + rest
    return lead + text


def _closing(node, pad: str, comments: _Comments | None) -> str:
    """Comments left inside a braced node, just before its closing brace."""
    if comments is None or node.span.line <= 0:
        return ""
    return "".join("\n" + line for line in comments.before(node.span.end_line, pad).splitlines())


def cite(c: str | None) -> str:
    if c is None:
        return ""
    return f" §{c}" if _BARE_CITE.match(c) else f' §"{c}"'


def site_id(name: str | None) -> str:
    return "" if name is None else f" id {name}"


def string(s: str) -> str:
    if '"' in s or "\n" in s:
        raise KnapperError(
            diag(
                "K020",
                "a string cannot contain a double quote or a newline",
                Span("<fmt>", 0, 0, 0, 0),
            )
        )
    return f'"{s}"'


# ------------------------------------------------------------------ files and declarations
def format_file(f: ast.File, comments: _Comments | None = None) -> str:
    if f.kind == "ruleset":
        head = f"ruleset {string(f.name)}{cite(f.cite)}"
    elif f.kind == "variant":
        bases = ", ".join(string(b) for b in (f.extends or "", *f.combines))
        head = f"variant {string(f.name)} extends {bases}{cite(f.cite)}"
    elif f.kind == "library":
        head = f"library {string(f.name)}"
    else:
        head = f"scenarios for {string(f.name)}"
    out = (comments.before(f.span.line, "") if comments is not None else "") + head
    previous: tuple[Any, str] = (f, head)  # a declaration on the header's next line stays
    for item in list(f.items) + list(f.scenarios):
        render = scenario_text if isinstance(item, ast.Scenario) else item_text
        text = _placed(item, lambda item=item, render=render: render(item, comments), "", comments)
        out += ("\n" if _adjacent(previous, item, text, comments) else "\n\n") + text
        previous = (item, text)
    rest = comments.before(10**9, "").rstrip("\n") if comments is not None else ""
    return out + ("\n\n" + rest if rest else "") + "\n"


def _adjacent(previous, item, text: str, comments: _Comments | None) -> bool:
    """Keep one-line declarations together when the author wrote them on consecutive lines."""
    if previous is None or comments is None:
        return False
    before, before_text = previous
    last_line = before.span.line if isinstance(before, ast.File) else before.span.end_line
    return "\n" not in text and "\n" not in before_text and last_line + 1 == item.span.line


def item_text(item, comments: _Comments | None = None) -> str:
    """A declaration or an overlay, as an item of a file."""
    return _DECLARATIONS.visit(item, comments)


def type_text(t) -> str:
    return _PARTS.visit(t)


def keys_text(keys) -> str:
    if not keys:
        return ""
    return "[" + ", ".join(_PARTS.visit(k) for k in keys) + "]"


def vis(v: str) -> str:
    if v == "scratch":
        return " scratch"
    return "" if v == "public" else f" visible {v}"


def decl(d, comments: _Comments | None = None) -> str:
    return _DECLARATIONS.visit(d, comments)


class _Declarations(Visitor):
    """The printers of declarations and overlays: `(node, comments) -> text`."""

    domain = ast.DECLARATIONS + ast.OVERLAYS

    @on(ast.SetParam)
    def o_SetParam(self, item: ast.SetParam, comments) -> str:
        return f"set {item.name} = {expr(item.value)}{cite(item.cite)}"

    @on(ast.Replace)
    def o_Replace(self, item: ast.Replace, comments) -> str:
        return "replace " + decl(item.decl, comments)

    @on(ast.AddDecl)
    def o_AddDecl(self, item: ast.AddDecl, comments) -> str:
        return "add " + decl(item.decl, comments)

    @on(ast.AddRow)
    def o_AddRow(self, item: ast.AddRow, comments) -> str:
        return f"add row {item.table} {row(item.row, None)}"

    @on(ast.RemoveDecl)
    def o_RemoveDecl(self, item: ast.RemoveDecl, comments) -> str:
        return f"remove {item.name.replace(':', ' ')}"

    @on(ast.RemoveRow)
    def o_RemoveRow(self, item: ast.RemoveRow, comments) -> str:
        return f"remove row {item.table} {item.row}"

    @on(ast.Import)
    def d_Import(self, d: ast.Import, comments) -> str:
        return f"import {string(d.path)}"

    @on(ast.Title)
    def d_Title(self, d: ast.Title, comments) -> str:
        return f"title {string(d.text)}"

    @on(ast.Source)
    def d_Source(self, d: ast.Source, comments) -> str:
        return f"source {string(d.text)}"

    @on(ast.Players)
    def d_Players(self, d: ast.Players, comments) -> str:
        count = str(d.lo) if d.lo == d.hi else f"{d.lo}..{d.hi}"
        return f"players {count}{cite(d.cite)}"

    @on(ast.Bound)
    def d_Bound(self, d: ast.Bound, comments) -> str:
        return f"bound {d.decisions} decisions{cite(d.cite)}"

    @on(ast.View)
    def d_View(self, d: ast.View, comments) -> str:
        return "view {\n" + "\n".join("  " + _PARTS.visit(g) for g in d.groups) + "\n}"

    @on(ast.Param)
    def d_Param(self, d: ast.Param, comments) -> str:
        head = f"param {d.name}: {type_text(d.type)} = "
        return _wrapped_value(head, d.value, cite(d.cite))

    @on(ast.Enum)
    def d_Enum(self, d: ast.Enum, comments) -> str:
        titles, payloads = dict(d.titles), dict(d.payloads)
        values = [
            v
            + (f"({params(payloads[v])})" if v in payloads else "")
            + (f" {string(titles[v])}" if v in titles else "")
            for v in d.values
        ]
        return _braced(f"enum {d.name}{cite(d.cite)}", values)

    @on(ast.Record)
    def d_Record(self, d: ast.Record, comments) -> str:
        head = f"{d.keyword} {d.name}{cite(d.cite)}"
        tail = f" sides {d.sides[0]}, {d.sides[1]}" if d.sides else ""
        fields = [_PARTS.visit(f) for f in d.fields]
        commented = comments is not None and comments.inside(d.span.line, d.span.end_line)
        if not commented:
            return _braced(head, fields) + tail
        # one field per line, each keeping the comments written beside it
        body = "".join(
            "\n" + _placed(f, lambda text=text: f"{INDENT}{text},", INDENT, comments)
            for f, text in zip(d.fields, fields)
        )
        return f"{head} {{{body}{_closing(d, INDENT, comments)}\n}}{tail}"

    @on(ast.Table)
    def d_Table(self, d: ast.Table, comments) -> str:
        dice = f" roll {d.dice}" if d.dice else ""
        sides = int(d.dice.split("d")[1]) if d.dice else None
        rows = "".join(
            "\n" + _placed(r, lambda r=r: INDENT + row(r, sides), INDENT, comments) for r in d.rows
        )
        rows += _closing(d, INDENT, comments)
        return f"{_marked(f'table {d.name}: {d.record}{dice}{cite(d.cite)}', d)} {{{rows}\n}}"

    @on(ast.Map)
    def d_Map(self, d: ast.Map, comments) -> str:
        body = "".join(
            "\n" + _placed(i, lambda i=i: INDENT + map_item(i), INDENT, comments) for i in d.items
        )
        body += _closing(d, INDENT, comments)
        return f"{_marked(f'map {d.name}{cite(d.cite)}', d)} {{{body}\n}}"

    @on(ast.Var)
    def d_Var(self, d: ast.Var, comments) -> str:
        head = f"var {d.name}{keys_text(d.keys)}: {type_text(d.type)} = "
        return _wrapped_value(head, d.value, f"{vis(d.visibility)}{cite(d.cite)}")

    @on(ast.Zone)
    def d_Zone(self, d: ast.Zone, comments) -> str:
        kind = f"row {d.size}" if d.kind == "row" else d.kind
        elem = f" of {type_text(d.elem)}" if d.elem is not None else ""
        return f"zone {d.name}{keys_text(d.keys)}: {kind}{elem}{vis(d.visibility)}{cite(d.cite)}"

    @on(ast.Pool)
    def d_Pool(self, d: ast.Pool, comments) -> str:
        value = f" = {expr(d.value)}" if d.value is not None else ""
        tail = f"{value}{vis(d.visibility)}{cite(d.cite)}"
        return f"pool {d.name}{keys_text(d.keys)} of {d.enum}{tail}"

    @on(ast.Fn)
    def d_Fn(self, d: ast.Fn, comments) -> str:
        result = f": {type_text(d.result)}" if d.result is not None else ""
        text = f" {string(d.template)}" if d.template is not None else ""
        head = f"{d.kind} {d.name}({params(d.params)}){result}{text}{cite(d.cite)}"
        if d.signature_only:
            return head
        head += " ="
        body = expr(d.body)
        if len(f"{head} {body}") <= WIDTH and "\n" not in body:
            return f"{head} {body}"
        return f"{head}\n{INDENT}{body}"

    @on(ast.Proc)
    def d_Proc(self, d: ast.Proc, comments) -> str:
        text = f" {string(d.template)}" if d.template is not None else ""
        at = f" at {d.at}" if d.at is not None else ""
        if d.kind == "window":
            assert d.who is not None
            head = (
                f"window {d.name}({params(d.params)}) for {expr(d.who)} {d.side} {d.at}"
                f"{cite(d.cite)}"
            )
            return f"{head} {block(d.body, 0, comments)}"
        head = f"{d.kind} {d.name}({params(d.params)}){at}{text}{cite(d.cite)}"
        if d.during:
            head += f" during {', '.join(d.during)}"
        if d.when is not None:
            head += f": {expr(d.when)}"
        if d.signature_only:
            return head
        return f"{head} {block(d.body, 0, comments)}"

    @on(ast.Setup)
    def d_Setup(self, d: ast.Setup, comments) -> str:
        return f"setup{cite(d.cite)} {block(d.body, 0, comments)}"

    @on(ast.Round)
    def d_Round(self, d: ast.Round, comments) -> str:
        return f"round max {d.max}{cite(d.cite)} {block(d.body, 0, comments)}"

    @on(ast.Outcome)
    def d_Outcome(self, d: ast.Outcome, comments) -> str:
        return f"{d.kind}({d.param}){cite(d.cite)} = {expr(d.value)}"

    @on(ast.Invariant)
    def d_Invariant(self, d: ast.Invariant, comments) -> str:
        return f"invariant {d.name}{cite(d.cite)}: {expr(d.value)}"

    @on(ast.Moment)
    def d_Moment(self, d: ast.Moment, comments) -> str:
        text = f" {string(d.template)}" if d.template is not None else ""
        given = f"({params(d.params)})" if d.params else ""
        return f"moment {d.name}{given}{text}{cite(d.cite)}"

    @on(ast.Note)
    def d_Note(self, d: ast.Note, comments) -> str:
        head = f"{d.kind} {d.name}{cite(d.cite)}" + "".join(cite(c) for c in d.also)
        fix = ""
        if d.fix is not None:
            printed = f"printed {string(d.printed)} " if d.printed is not None else ""
            fix = f"\n{INDENT}{printed}should {string(d.fix)}"
        if len(f"{head} {string(d.text)}") <= WIDTH:
            return f"{head} {string(d.text)}{fix}"
        # a long note is written as several strings, one per line; they read as one text
        return head + "".join(f"\n{INDENT}{string(part)}" for part in _split_text(d.text)) + fix


def _split_text(text: str, width: int = WIDTH - len(INDENT) - 2) -> list[str]:
    """Pieces of `text`, each cut just after a space and short enough for a line; joined
    they give back `text` exactly."""
    parts = []
    while len(text) > width:
        cut = text.rfind(" ", 1, width)
        if cut <= 0:
            cut = text.find(" ", width)  # one long word: cut after it
        if cut <= 0:
            break
        parts.append(text[: cut + 1])
        text = text[cut + 1 :]
    parts.append(text)
    return parts


def _braced(head: str, items: list[str]) -> str:
    """`head { a, b, c }` on one line, or one item per line when that would be too long."""
    line = f"{head} {{ {', '.join(items)} }}"
    if len(line) <= WIDTH:
        return line
    return f"{head} {{\n" + "".join(f"{INDENT}{item},\n" for item in items) + "}"


def _wrapped_value(head: str, value, tail: str) -> str:
    """A declaration whose value is a long list literal: one item per line."""
    line = f"{head}{expr(value)}{tail}"
    if len(line) <= WIDTH or not isinstance(value, ast.ListLit) or not value.items:
        return line
    items = "".join(f"{INDENT}{expr(item)},\n" for item in value.items)
    return f"{head}[\n{items}]{tail}"


def _marked(head: str, d: ast.Map | ast.Table) -> str:
    """A map's or table's head, then its marker on the same line or, when too long, on its
    own."""
    if not d.reconstructed:
        return head
    marker = _marker(d.reason)
    if len(f"{head} {marker} {{") <= WIDTH:
        return f"{head} {marker}"
    if len(INDENT * 2 + marker) <= WIDTH or d.reason is None:
        return f"{head}\n{INDENT * 2}{marker}"
    # a long reason is written as several strings, one per line, as a long note is
    pieces = _split_text(d.reason, WIDTH - len(INDENT * 2) - 2)
    return f"{head}\n{INDENT * 2}reconstructed" + "".join(
        f"\n{INDENT * 2}{string(part)}" for part in pieces
    )


def _marker(reason: str | None) -> str:
    """The marker `reconstructed ["reason"]` of a row, a table or a map."""
    return "reconstructed" + (f" {string(reason)}" if reason is not None else "")


def map_item(i) -> str:
    return _PARTS.visit(i)


def params(ps) -> str:
    return ", ".join(_PARTS.visit(p) for p in ps)


def row(r: ast.Row, sides: int | None) -> str:
    parts = []
    if r.lo is not None and r.hi is not None:
        lo, hi = _face_text(r.lo, sides), _face_text(r.hi, sides)
        parts.append(lo if r.lo == r.hi else f"{lo}-{hi}")
    parts.append(r.name)
    if r.title is not None:
        parts.append(string(r.title))
    head = " ".join(parts)
    tail = (f" x {r.copies}" if r.copies is not None else "") + cite(r.cite)
    text = _values(head, r, tail)
    if not r.reconstructed:
        return text
    marker = _marker(r.reason)
    last = text.rpartition("\n")[2]
    pad = INDENT if "\n" not in text else ""  # a continuation line carries its own indent
    if len(pad + last + " " + marker) <= WIDTH:
        return f"{text} {marker}"
    return f"{text}\n{INDENT * 2}{marker}"  # the marker on a line of its own


def _values(head: str, r: ast.Row, tail: str) -> str:
    """A row up to its citation: on one line, or with its values on lines of their own."""
    text = f"{head} ({args(r.args)}){tail}"
    if len(INDENT + text) <= WIDTH:
        return text
    # too long for one line: the values continue on lines of their own, filled greedily
    # (the first line is printed after the row's indent; the others carry twice that)
    lines, line, pad = [], f"{head} (", INDENT
    items = [args([a]) for a in r.args]
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else f"){tail}")
        if line.endswith("("):
            line += piece
        elif len(pad + line + " " + piece) <= WIDTH:
            line += " " + piece
        else:
            lines.append(line)
            line, pad = INDENT * 2 + piece, ""
    return "\n".join([*lines, line])


def _face_text(value: int, sides: int | None) -> str:
    return f"{value:02d}" if sides == 100 else str(value)


def args(items) -> str:
    return ", ".join(_PARTS.visit(a) if isinstance(a, ast.KwArg) else expr(a) for a in items)


class _Parts(Visitor):
    """The printers of the parts of declarations and statements, and of whole scenarios and
    files: each takes what its kind needs (a block its depth and the comments)."""

    domain = ast.TYPES + ast.KEYS + ast.PARTS + ast.SCENARIO_STEPS

    @on(ast.TypeName)
    def p_TypeName(self, t: ast.TypeName) -> str:
        return t.name

    @on(ast.TypeList)
    def p_TypeList(self, t: ast.TypeList) -> str:
        return f"list of {type_text(t.elem)}"

    @on(ast.KeyName)
    def p_KeyName(self, k: ast.KeyName) -> str:
        return k.name

    @on(ast.KeyRange)
    def p_KeyRange(self, k: ast.KeyRange) -> str:
        return f"{k.lo}..{k.hi}"

    @on(ast.ParamDecl)
    def p_typed_name(self, f: ast.ParamDecl) -> str:
        return f"{f.name}: {type_text(f.type)}"

    @on(ast.Field)
    def p_Field(self, f: ast.Field) -> str:
        default = f" = {expr(f.default)}" if f.default is not None else ""
        return f"{f.name}: {type_text(f.type)}{default}"

    @on(ast.ViewGroup)
    def p_ViewGroup(self, g: ast.ViewGroup) -> str:
        whose = "" if g.whose == "all" else " " + g.whose
        return f"{string(g.title)}{whose}: {', '.join(g.names)}"

    @on(ast.Row)
    def p_Row(self, r: ast.Row, sides: int | None = None) -> str:
        return row(r, sides)

    @on(ast.MapNode)
    def p_MapNode(self, i: ast.MapNode) -> str:
        title = f" {string(i.title)}" if i.title is not None else ""
        return f"node {i.name}{title}{cite(i.cite)}"

    @on(ast.MapEdge)
    def p_MapEdge(self, i: ast.MapEdge) -> str:
        return f"{i.a} -- {', '.join(i.others)}{cite(i.cite)}"

    @on(ast.KwArg)
    def p_KwArg(self, a: ast.KwArg) -> str:
        return f"{a.name}={expr(a.value)}"

    @on(ast.CompFor)
    def p_CompFor(self, f: ast.CompFor) -> str:
        return f"for {f.name} in {expr(f.iter, P_OR)}"

    @on(ast.Target)
    def p_Target(self, t: ast.Target) -> str:
        if not t.indices:
            return t.name
        return f"{t.name}[{', '.join(expr(i) for i in t.indices)}]"

    @on(ast.Block)
    def p_Block(self, b: ast.Block, depth: int, comments: _Comments | None = None) -> str:
        return block(b, depth, comments)

    @on(ast.MatchArm)
    def p_MatchArm(self, a: ast.MatchArm, depth: int, comments: _Comments | None = None) -> str:
        bound = f"({', '.join(a.binds)})" if a.binds else ""
        return f"{a.name}{bound} {block(a.body, depth, comments)}"

    @on(ast.ScenarioChoices)
    def p_ScenarioChoices(self, step: ast.ScenarioChoices) -> str:
        return "choices " + ", ".join(expr(c) for c in step.values)

    @on(ast.ScenarioExpect)
    def p_ScenarioExpect(self, step: ast.ScenarioExpect) -> str:
        kind = "" if step.kind == "holds" else f"{step.kind} "
        label = f" as {string(step.label)}" if step.label is not None else ""
        printed = f" printed {expr(step.printed)}" if step.printed is not None else ""
        return f"expect {kind}{expr(step.value)}{printed}{label}"

    @on(ast.Scenario)
    def p_Scenario(self, sc: ast.Scenario, comments: _Comments | None = None) -> str:
        return scenario_text(sc, comments)

    @on(ast.File)
    def p_File(self, f: ast.File, comments: _Comments | None = None) -> str:
        return format_file(f, comments)


# ------------------------------------------------------------------ statements
def block(b: ast.Block, depth: int, comments: _Comments | None = None) -> str:
    if not b.stmts:
        return "{ }"
    pad = INDENT * (depth + 1)
    body = "".join(
        "\n" + _placed(s, lambda s=s: pad + stmt(s, depth + 1, comments), pad, comments)
        for s in b.stmts
    )
    return "{" + body + _closing(b, pad, comments) + "\n" + INDENT * depth + "}"


_BLOCKS = (ast.If, ast.For, ast.While, ast.Outcry, ast.Repeat)  # never on one line


def _one_line_if(s: ast.If) -> bool:
    """Keep `if c { stmt }` on one line when the author did and it stays short."""
    if len(s.branches) != 1 or s.otherwise is not None or s.span.line != s.span.end_line:
        return False
    body = s.branches[0][1]
    if len(body.stmts) != 1 or isinstance(body.stmts[0], _BLOCKS):
        return False
    return len(f"if {expr(s.branches[0][0])} {{ {stmt(body.stmts[0], 0)} }}") <= WIDTH - 8


def target(t: ast.Target) -> str:
    return _PARTS.visit(t)


def stmt(s, depth: int, comments: _Comments | None = None) -> str:
    return _STATEMENTS.visit(s, depth, comments)


class _Statements(Visitor):
    """The printers of statements: `(statement, depth, comments) -> text`."""

    domain = ast.STATEMENTS

    @on(ast.Let)
    def s_Let(self, s: ast.Let, depth: int, comments) -> str:
        return f"let {s.name} = {expr(s.value)}"

    @on(ast.Assign)
    def s_Assign(self, s: ast.Assign, depth: int, comments) -> str:
        return f"{target(s.target)} {s.op} {expr(s.value)}"

    @on(ast.If)
    def s_If(self, s: ast.If, depth: int, comments) -> str:
        if _one_line_if(s):
            ((cond, body),) = s.branches
            return f"if {expr(cond)} {{ {stmt(body.stmts[0], depth, comments)} }}"
        (cond, body), *rest = s.branches
        text = f"if {expr(cond)} {block(body, depth, comments)}"
        for cond, body in rest:
            text += f" elif {expr(cond)} {block(body, depth, comments)}"
        if s.otherwise is not None:
            text += f" else {block(s.otherwise, depth, comments)}"
        return text

    @on(ast.For)
    def s_For(self, s: ast.For, depth: int, comments) -> str:
        return f"for {s.name} in {expr(s.iter)} {block(s.body, depth, comments)}"

    @on(ast.Repeat)
    def s_Repeat(self, s: ast.Repeat, depth: int, comments) -> str:
        return f"repeat {expr(s.count)} {block(s.body, depth, comments)}"

    @on(ast.Simultaneously)
    def s_Simultaneously(self, s: ast.Simultaneously, depth: int, comments) -> str:
        return f"simultaneously {block(s.body, depth, comments)}"

    @on(ast.While)
    def s_While(self, s: ast.While, depth: int, comments) -> str:
        bound = f" max {s.max}" if s.max is not None else ""
        return f"while {expr(s.cond)}{bound} {block(s.body, depth, comments)}"

    @on(ast.Outcry)
    def s_Outcry(self, s: ast.Outcry, depth: int, comments) -> str:
        head = f"outcry {s.name} in {expr(s.iter)} on {expr(s.watch)} max {s.max}"
        return f"{head} {block(s.body, depth, comments)}"

    @on(ast.Choose)
    def s_Choose(self, s: ast.Choose, depth: int, comments) -> str:
        prompt = f" as {string(s.prompt)}" if s.prompt is not None else ""
        chooser, options = expr(s.player), expr(s.options)
        verb = "ask" if s.always else "choose"
        secret = " secret" if s.secret else ""
        head = f"let {s.name} = {verb} {chooser} from {options}{prompt}{site_id(s.id)}{secret}"
        return f"{head}{cite(s.cite)}"

    @on(ast.Agree)
    def s_Agree(self, s: ast.Agree, depth: int, comments) -> str:
        prompt = f" as {string(s.prompt)}" if s.prompt is not None else ""
        head = f"let {s.name} = agree {expr(s.group)} from {expr(s.options)} max {s.max}"
        return f"{head}{prompt}{site_id(s.id)}{cite(s.cite)}"

    @on(ast.Negotiate)
    def s_Negotiate(self, s: ast.Negotiate, depth: int, comments) -> str:
        prompt = f" as {string(s.prompt)}" if s.prompt is not None else ""
        by = f" by {expr(s.proposers)}" if s.proposers is not None else ""
        head = f"let {s.name} = negotiate {expr(s.parties)}{by} from {expr(s.items)} max {s.max}"
        return f"{head}{prompt}{site_id(s.id)}{cite(s.cite)}"

    @on(ast.CallStmt)
    def s_CallStmt(self, s: ast.CallStmt, depth: int, comments) -> str:
        return f"{s.name}({args(s.args)}){cite(s.cite)}"

    @on(ast.AddTo)
    def s_AddTo(self, s: ast.AddTo, depth: int, comments) -> str:
        return f"add {expr(s.value)} to {target(s.target)}"

    @on(ast.Match)
    def s_Match(self, s: ast.Match, depth: int, comments) -> str:
        pad = INDENT * (depth + 1)
        lines = [f"match {expr(s.subject)} {{"]
        for arm in s.arms:
            lines.append(pad + _PARTS.visit(arm, depth + 1, comments))
        if s.otherwise is not None:
            lines.append(f"{pad}else {block(s.otherwise, depth + 1, comments)}")
        return "\n".join(lines) + "\n" + INDENT * depth + "}"

    @on(ast.Spend)
    def s_Spend(self, s: ast.Spend, depth: int, comments) -> str:
        to = f" to {target(s.sink)}" if s.sink is not None else ""
        return f"spend {expr(s.bag)} from {target(s.source)}{to}{cite(s.cite)}"

    @on(ast.RemoveFrom)
    def s_RemoveFrom(self, s: ast.RemoveFrom, depth: int, comments) -> str:
        return f"remove {expr(s.value)} from {target(s.target)}"

    @on(ast.Move)
    def s_Move(self, s: ast.Move, depth: int, comments) -> str:
        return f"move {expr(s.value)} from {target(s.source)} to {target(s.dest)}"

    @on(ast.Flip)
    def s_Flip(self, s: ast.Flip, depth: int, comments) -> str:
        return f"flip {expr(s.value)}"

    @on(ast.Reveal)
    def s_Reveal(self, s: ast.Reveal, depth: int, comments) -> str:
        return f"reveal {expr(s.value)} to {expr(s.to)}"

    @on(ast.Shuffle)
    def s_Shuffle(self, s: ast.Shuffle, depth: int, comments) -> str:
        return f"shuffle {target(s.target)}"

    @on(ast.Draw)
    def s_Draw(self, s: ast.Draw, depth: int, comments) -> str:
        return f"draw {expr(s.count)} from {target(s.source)} to {target(s.dest)}"

    @on(ast.EndGame)
    def s_EndGame(self, s: ast.EndGame, depth: int, comments) -> str:
        return f"end game winners {expr(s.winners)}{cite(s.cite)}"

    @on(ast.Log)
    def s_Log(self, s: ast.Log, depth: int, comments) -> str:
        names = s.names or (None,) * len(s.args)
        shown = [expr(a) if n is None else f"{n} = {expr(a)}" for n, a in zip(names, s.args)]
        to = f"to {expr(s.to)} " if s.to is not None else ""
        return f"log {to}" + ", ".join([string(s.text)] + shown)

    @on(ast.Trigger)
    def s_Trigger(self, s: ast.Trigger, depth: int, comments) -> str:
        given = f"({', '.join(expr(a) for a in s.args)})" if s.args else ""
        by = "" if isinstance(s.player, ast.NoneLit) else f" by {expr(s.player)}"
        by += f" ordered by {expr(s.order)}" if s.order is not None else ""
        if isinstance(s.items, ast.ListLit) and not s.items.items and not by:
            return f"raise {s.moment}{given}{cite(s.cite)}"
        return f"trigger {s.moment}{given} for {expr(s.items)}{by}{cite(s.cite)}"

    @on(ast.Perform)
    def s_Perform(self, s: ast.Perform, depth: int, comments) -> str:
        card = f" with {expr(s.card)}" if s.card is not None else ""
        return f"perform {expr(s.effects)} by {expr(s.player)}{card}{cite(s.cite)}"

    @on(ast.Break)
    def s_Break(self, s: ast.Break, depth: int, comments) -> str:
        return "break"

    @on(ast.Quiet)
    def s_Quiet(self, s: ast.Quiet, depth: int, comments) -> str:
        who = f" among {expr(s.who)}" if s.who is not None else ""
        return f"quiet{who}{cite(s.cite)}"

    @on(ast.Pass)
    def s_Pass(self, s: ast.Pass, depth: int, comments) -> str:
        return "pass"


# ------------------------------------------------------------------ expressions
def expr(e, need: int = P_IF) -> str:
    text, prec = _expr(e)
    return f"({text})" if prec < need else text


def _expr(e) -> tuple[str, int]:
    return _EXPRESSIONS.visit(e)


class _Expressions(Visitor):
    """The printers of expressions: `expression -> (text, precedence)`."""

    domain = ast.EXPRESSIONS

    @on(ast.IntLit)
    def x_IntLit(self, e: ast.IntLit) -> tuple[str, int]:
        return str(e.value), P_ATOM

    @on(ast.StrLit)
    def x_StrLit(self, e: ast.StrLit) -> tuple[str, int]:
        return string(e.value), P_ATOM

    @on(ast.BoolLit)
    def x_BoolLit(self, e: ast.BoolLit) -> tuple[str, int]:
        return ("true" if e.value else "false"), P_ATOM

    @on(ast.NoneLit)
    def x_NoneLit(self, e: ast.NoneLit) -> tuple[str, int]:
        return "none", P_ATOM

    @on(ast.NameRef)
    def x_NameRef(self, e: ast.NameRef) -> tuple[str, int]:
        return e.name, P_ATOM

    @on(ast.ListLit)
    def x_ListLit(self, e: ast.ListLit) -> tuple[str, int]:
        return "[" + ", ".join(expr(i) for i in e.items) + "]", P_ATOM

    @on(ast.Comprehension)
    def x_Comprehension(self, e: ast.Comprehension) -> tuple[str, int]:
        parts = [_PARTS.visit(f) for f in e.fors]
        if e.cond is not None:
            parts.append(f"if {expr(e.cond, P_OR)}")
        flat = f"[{expr(e.expr)} {' '.join(parts)}]"
        if len(flat) <= WIDTH - 8 or "\n" in flat:
            return flat, P_ATOM
        # too long for a line: each `for` and `if` on a line of its own
        return f"[{expr(e.expr)}" + "".join(f"\n{CONTINUE}{p}" for p in parts) + "]", P_ATOM

    @on(ast.IfExpr)
    def x_IfExpr(self, e: ast.IfExpr) -> tuple[str, int]:
        return (
            f"if {expr(e.cond, P_OR)} then {expr(e.then, P_OR)} else {expr(e.other, P_IF)}",
            P_IF,
        )

    @on(ast.UnaryOp)
    def x_UnaryOp(self, e: ast.UnaryOp) -> tuple[str, int]:
        if e.op == "not":
            return f"not {expr(e.operand, P_NOT)}", P_NOT
        return f"-{expr(e.operand, P_UNARY)}", P_UNARY

    @on(ast.BinOp)
    def x_BinOp(self, e: ast.BinOp) -> tuple[str, int]:
        op = e.op
        if op == "or":
            return f"{expr(e.left, P_OR)} or {expr(e.right, P_AND)}", P_OR
        if op == "and":
            return f"{expr(e.left, P_AND)} and {expr(e.right, P_NOT)}", P_AND
        if op in _CMP:
            return f"{expr(e.left, P_SUM)} {op} {expr(e.right, P_SUM)}", P_CMP
        if op in ("+", "-"):
            return f"{expr(e.left, P_SUM)} {op} {expr(e.right, P_PROD)}", P_SUM
        return f"{expr(e.left, P_PROD)} {op} {expr(e.right, P_UNARY)}", P_PROD

    @on(ast.FieldGet)
    def x_FieldGet(self, e: ast.FieldGet) -> tuple[str, int]:
        return f"{expr(e.obj, P_POSTFIX)}.{e.name}", P_POSTFIX

    @on(ast.IndexGet)
    def x_IndexGet(self, e: ast.IndexGet) -> tuple[str, int]:
        return f"{expr(e.obj, P_POSTFIX)}[{', '.join(expr(i) for i in e.indices)}]", P_POSTFIX

    @on(ast.CallExpr)
    def x_CallExpr(self, e: ast.CallExpr) -> tuple[str, int]:
        return f"{e.name}({args(e.args)})", P_POSTFIX

    @on(ast.RollDice)
    def x_RollDice(self, e: ast.RollDice) -> tuple[str, int]:
        return f"roll {e.count}d{e.sides}", P_ATOM

    @on(ast.RollTable)
    def x_RollTable(self, e: ast.RollTable) -> tuple[str, int]:
        return f"roll {e.table}", P_ATOM


# ------------------------------------------------------------------ scenarios
def scenario_text(sc: ast.Scenario, comments: _Comments | None = None) -> str:
    lines = []
    if sc.players is not None:
        lines.append(f"players {sc.players}")
    if sc.seed is not None:
        lines.append(f"seed {sc.seed}")
    if sc.position is not None:
        lines.append(f"position {block(sc.position, 1, comments)}")
    if sc.run is not None:
        lines.append(f"run {sc.run.name}({args(sc.run.args)})")
    if sc.dice:
        lines.append("dice " + ", ".join(str(d) for d in sc.dice))
    lines += [f"{part} strict" for part in sc.strict]
    lines += [_PARTS.visit(step) for step in sc.steps]
    body = "".join(f"\n{INDENT}{line}" for line in lines) + _closing(sc, INDENT, comments)
    return f"scenario {string(sc.name)}{cite(sc.cite)} {{{body}\n}}"


# the printers hold no state: a file's comments are passed down with each call
_DECLARATIONS = _Declarations()
_PARTS = _Parts()
_STATEMENTS = _Statements()
_EXPRESSIONS = _Expressions()
PRINTERS: tuple[Visitor, ...] = (_DECLARATIONS, _PARTS, _STATEMENTS, _EXPRESSIONS)
