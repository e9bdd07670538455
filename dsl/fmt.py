"""The formatter: AST -> canonical Knapper text (`knapper fmt`).

`format_file(parse(text))` parses back to an equal AST (tests check this on generated ASTs).
Comments are not part of the AST: `format_text` carries them over by line (before the node
that follows them, or at the end of the line where they stood), and checks that its output
means exactly what the input meant.
"""

from __future__ import annotations

import re
from typing import Any

from dsl import ast
from dsl.errors import KnapperError, Span, diag
from dsl.parse import parse

INDENT = "  "
WIDTH = 100
CONTINUE = INDENT * 3  # the indent of a long expression's continuation lines
_BARE_CITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*\Z")

# precedence levels, loosest first
P_IF, P_OR, P_AND, P_NOT, P_CMP, P_SUM, P_PROD, P_UNARY, P_POSTFIX, P_ATOM = range(10)
_CMP = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"}


def format_text(text: str, path: str = "<string>") -> str:
    """Format a file, keeping its comments; refuses to return text that means anything else."""
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
    match item:
        case ast.SetParam():
            return f"set {item.name} = {expr(item.value)}{cite(item.cite)}"
        case ast.Replace():
            return "replace " + decl(item.decl, comments)
        case ast.AddDecl():
            return "add " + decl(item.decl, comments)
        case ast.AddRow():
            return f"add row {item.table} {row(item.row, None)}"
        case ast.RemoveDecl():
            return f"remove {item.name.replace(':', ' ')}"
        case ast.RemoveRow():
            return f"remove row {item.table} {item.row}"
    return decl(item, comments)


def type_text(t) -> str:
    if isinstance(t, ast.TypeList):
        return f"list of {type_text(t.elem)}"
    return t.name


def keys_text(keys) -> str:
    if not keys:
        return ""
    shown = [k.name if isinstance(k, ast.KeyName) else f"{k.lo}..{k.hi}" for k in keys]
    return "[" + ", ".join(shown) + "]"


def vis(v: str) -> str:
    return "" if v == "public" else f" visible {v}"


def decl(d, comments: _Comments | None = None) -> str:
    match d:
        case ast.Import():
            return f"import {string(d.path)}"
        case ast.Title():
            return f"title {string(d.text)}"
        case ast.Source():
            return f"source {string(d.text)}"
        case ast.Players():
            count = str(d.lo) if d.lo == d.hi else f"{d.lo}..{d.hi}"
            return f"players {count}{cite(d.cite)}"
        case ast.Bound():
            return f"bound {d.decisions} decisions{cite(d.cite)}"
        case ast.Param():
            head = f"param {d.name}: {type_text(d.type)} = "
            return _wrapped_value(head, d.value, cite(d.cite))
        case ast.Enum():
            return _braced(f"enum {d.name}{cite(d.cite)}", list(d.values))
        case ast.Record():
            head = f"{d.keyword} {d.name}{cite(d.cite)}"
            fields = [f"{f.name}: {type_text(f.type)}" for f in d.fields]
            commented = comments is not None and comments.inside(d.span.line, d.span.end_line)
            if not commented:
                return _braced(head, fields)
            # one field per line, each keeping the comments written beside it
            body = "".join(
                "\n" + _placed(f, lambda text=text: f"{INDENT}{text},", INDENT, comments)
                for f, text in zip(d.fields, fields)
            )
            return f"{head} {{{body}{_closing(d, INDENT, comments)}\n}}"
        case ast.Table():
            dice = f" roll {d.dice}" if d.dice else ""
            sides = int(d.dice.split("d")[1]) if d.dice else None
            rows = "".join(
                "\n" + _placed(r, lambda r=r: INDENT + row(r, sides), INDENT, comments)
                for r in d.rows
            )
            rows += _closing(d, INDENT, comments)
            return f"table {d.name}: {d.record}{dice}{cite(d.cite)} {{{rows}\n}}"
        case ast.Map():
            body = "".join(
                "\n" + _placed(i, lambda i=i: INDENT + map_item(i), INDENT, comments)
                for i in d.items
            )
            body += _closing(d, INDENT, comments)
            return f"{_map_head(d)} {{{body}\n}}"
        case ast.Var():
            head = f"var {d.name}{keys_text(d.keys)}: {type_text(d.type)} = "
            return _wrapped_value(head, d.value, f"{vis(d.visibility)}{cite(d.cite)}")
        case ast.Zone():
            kind = f"row {d.size}" if d.kind == "row" else d.kind
            elem = f" of {type_text(d.elem)}" if d.elem is not None else ""
            return (
                f"zone {d.name}{keys_text(d.keys)}: {kind}{elem}{vis(d.visibility)}{cite(d.cite)}"
            )
        case ast.Pool():
            value = f" = {expr(d.value)}" if d.value is not None else ""
            tail = f"{value}{vis(d.visibility)}{cite(d.cite)}"
            return f"pool {d.name}{keys_text(d.keys)} of {d.enum}{tail}"
        case ast.Fn():
            result = f": {type_text(d.result)}" if d.result is not None else ""
            head = f"fn {d.name}({params(d.params)}){result}{cite(d.cite)} ="
            body = expr(d.body)
            if len(f"{head} {body}") <= WIDTH and "\n" not in body:
                return f"{head} {body}"
            return f"{head}\n{INDENT}{body}"
        case ast.Proc():
            body = block(d.body, 0, comments)
            return f"{d.kind} {d.name}({params(d.params)}){cite(d.cite)} {body}"
        case ast.Setup():
            return f"setup{cite(d.cite)} {block(d.body, 0, comments)}"
        case ast.Round():
            return f"round max {d.max}{cite(d.cite)} {block(d.body, 0, comments)}"
        case ast.Score():
            return f"score({d.param}){cite(d.cite)} = {expr(d.value)}"
        case ast.Invariant():
            return f"invariant {d.name}{cite(d.cite)}: {expr(d.value)}"
        case ast.Note():
            head = f"{d.kind} {d.name}{cite(d.cite)}" + "".join(cite(c) for c in d.also)
            if len(f"{head} {string(d.text)}") <= WIDTH:
                return f"{head} {string(d.text)}"
            # a long note is written as several strings, one per line; they read as one text
            return head + "".join(f"\n{INDENT}{string(part)}" for part in _split_text(d.text))
    raise TypeError(f"cannot format {d!r}")


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


def _map_head(m: ast.Map) -> str:
    """`map NAME §cite`, then the marker on the same line or, when too long, on its own."""
    head = f"map {m.name}{cite(m.cite)}"
    if not m.reconstructed:
        return head
    marker = _marker(m.reason)
    if len(f"{head} {marker} {{") <= WIDTH:
        return f"{head} {marker}"
    return f"{head}\n{INDENT * 2}{marker}"


def _marker(reason: str | None) -> str:
    """The marker `reconstructed ["reason"]` of a row or a map."""
    return "reconstructed" + (f" {string(reason)}" if reason is not None else "")


def map_item(i) -> str:
    if isinstance(i, ast.MapNode):
        title = f" {string(i.title)}" if i.title is not None else ""
        return f"node {i.name}{title}{cite(i.cite)}"
    return f"{i.a} -- {', '.join(i.others)}{cite(i.cite)}"


def params(ps) -> str:
    return ", ".join(f"{p.name}: {type_text(p.type)}" for p in ps)


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
    return ", ".join(
        f"{a.name}={expr(a.value)}" if isinstance(a, ast.KwArg) else expr(a) for a in items
    )


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


def _one_line_if(s: ast.If) -> bool:
    """Keep `if c { stmt }` on one line when the author did and it stays short."""
    if len(s.branches) != 1 or s.otherwise is not None or s.span.line != s.span.end_line:
        return False
    body = s.branches[0][1]
    if len(body.stmts) != 1 or isinstance(body.stmts[0], (ast.If, ast.For, ast.While, ast.Repeat)):
        return False
    return len(f"if {expr(s.branches[0][0])} {{ {stmt(body.stmts[0], 0)} }}") <= WIDTH - 8


def target(t: ast.Target) -> str:
    if not t.indices:
        return t.name
    return f"{t.name}[{', '.join(expr(i) for i in t.indices)}]"


def stmt(s, depth: int, comments: _Comments | None = None) -> str:
    match s:
        case ast.Let():
            return f"let {s.name} = {expr(s.value)}"
        case ast.Assign():
            return f"{target(s.target)} {s.op} {expr(s.value)}"
        case ast.If() if _one_line_if(s):
            ((cond, body),) = s.branches
            return f"if {expr(cond)} {{ {stmt(body.stmts[0], depth, comments)} }}"
        case ast.If():
            (cond, body), *rest = s.branches
            text = f"if {expr(cond)} {block(body, depth, comments)}"
            for cond, body in rest:
                text += f" elif {expr(cond)} {block(body, depth, comments)}"
            if s.otherwise is not None:
                text += f" else {block(s.otherwise, depth, comments)}"
            return text
        case ast.For():
            return f"for {s.name} in {expr(s.iter)} {block(s.body, depth, comments)}"
        case ast.Repeat():
            return f"repeat {expr(s.count)} {block(s.body, depth, comments)}"
        case ast.While():
            bound = f" max {s.max}" if s.max is not None else ""
            return f"while {expr(s.cond)}{bound} {block(s.body, depth, comments)}"
        case ast.Choose():
            prompt = f" as {string(s.prompt)}" if s.prompt is not None else ""
            chooser, options = expr(s.player), expr(s.options)
            verb = "ask" if s.always else "choose"
            return f"let {s.name} = {verb} {chooser} from {options}{prompt}{cite(s.cite)}"
        case ast.CallStmt():
            return f"{s.name}({args(s.args)}){cite(s.cite)}"
        case ast.AddTo():
            return f"add {expr(s.value)} to {target(s.target)}"
        case ast.RemoveFrom():
            return f"remove {expr(s.value)} from {target(s.target)}"
        case ast.Move():
            return f"move {expr(s.value)} from {target(s.source)} to {target(s.dest)}"
        case ast.Shuffle():
            return f"shuffle {target(s.target)}"
        case ast.Draw():
            return f"draw {expr(s.count)} from {target(s.source)} to {target(s.dest)}"
        case ast.EndGame():
            return f"end game winners {expr(s.winners)}{cite(s.cite)}"
        case ast.Log():
            return "log " + ", ".join([string(s.text)] + [expr(a) for a in s.args])
        case ast.Break():
            return "break"
        case ast.Pass():
            return "pass"
    raise TypeError(f"cannot format {s!r}")


# ------------------------------------------------------------------ expressions
def expr(e, need: int = P_IF) -> str:
    text, prec = _expr(e)
    return f"({text})" if prec < need else text


def _expr(e) -> tuple[str, int]:
    match e:
        case ast.IntLit():
            return str(e.value), P_ATOM
        case ast.StrLit():
            return string(e.value), P_ATOM
        case ast.BoolLit():
            return ("true" if e.value else "false"), P_ATOM
        case ast.NoneLit():
            return "none", P_ATOM
        case ast.NameRef():
            return e.name, P_ATOM
        case ast.ListLit():
            return "[" + ", ".join(expr(i) for i in e.items) + "]", P_ATOM
        case ast.Comprehension():
            parts = [f"for {f.name} in {expr(f.iter, P_OR)}" for f in e.fors]
            if e.cond is not None:
                parts.append(f"if {expr(e.cond, P_OR)}")
            flat = f"[{expr(e.expr)} {' '.join(parts)}]"
            if len(flat) <= WIDTH - 8 or "\n" in flat:
                return flat, P_ATOM
            # too long for a line: each `for` and `if` on a line of its own
            return f"[{expr(e.expr)}" + "".join(f"\n{CONTINUE}{p}" for p in parts) + "]", P_ATOM
        case ast.IfExpr():
            return (
                f"if {expr(e.cond, P_OR)} then {expr(e.then, P_OR)} else {expr(e.other, P_IF)}",
                P_IF,
            )
        case ast.UnaryOp(op="not"):
            return f"not {expr(e.operand, P_NOT)}", P_NOT
        case ast.UnaryOp():
            return f"-{expr(e.operand, P_UNARY)}", P_UNARY
        case ast.BinOp(op="or"):
            return f"{expr(e.left, P_OR)} or {expr(e.right, P_AND)}", P_OR
        case ast.BinOp(op="and"):
            return f"{expr(e.left, P_AND)} and {expr(e.right, P_NOT)}", P_AND
        case ast.BinOp(op=op) if op in _CMP:
            return f"{expr(e.left, P_SUM)} {op} {expr(e.right, P_SUM)}", P_CMP
        case ast.BinOp(op=op) if op in ("+", "-"):
            return f"{expr(e.left, P_SUM)} {op} {expr(e.right, P_PROD)}", P_SUM
        case ast.BinOp(op=op):
            return f"{expr(e.left, P_PROD)} {op} {expr(e.right, P_UNARY)}", P_PROD
        case ast.FieldGet():
            return f"{expr(e.obj, P_POSTFIX)}.{e.name}", P_POSTFIX
        case ast.IndexGet():
            return f"{expr(e.obj, P_POSTFIX)}[{', '.join(expr(i) for i in e.indices)}]", P_POSTFIX
        case ast.CallExpr():
            return f"{e.name}({args(e.args)})", P_POSTFIX
        case ast.RollDice():
            return f"roll {e.count}d{e.sides}", P_ATOM
        case ast.RollTable():
            return f"roll {e.table}", P_ATOM
    raise TypeError(f"cannot format {e!r}")


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
    for step in sc.steps:
        if isinstance(step, ast.ScenarioChoices):
            lines.append("choices " + ", ".join(expr(c) for c in step.values))
        else:
            kind = "" if step.kind == "holds" else f"{step.kind} "
            label = f" as {string(step.label)}" if step.label is not None else ""
            lines.append(f"expect {kind}{expr(step.value)}{label}")
    body = "".join(f"\n{INDENT}{line}" for line in lines) + _closing(sc, INDENT, comments)
    return f"scenario {string(sc.name)}{cite(sc.cite)} {{{body}\n}}"
