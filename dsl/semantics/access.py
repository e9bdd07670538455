"""What rules read and write of the game's state, by the names of its variables, zones and
pools.

In: a resolved program and its `Symbols`. Out: sets of state names. The checker uses it to
find standing rules that could set each other off without end (K237), the compiler to know
after which statements a standing rule's condition must be tested: those that write what
the condition reads.

Reads follow derived values into their bodies; a condition or measure passed as a value
(`holds`, `amount`) may be any of them, so it reads what all of them read. Writes follow
procedure calls into their bodies; a `perform` or `trigger` may run any effect, so it
writes what all of them write. Both over-approximate, which is safe for both users.
"""

from __future__ import annotations

from dsl.syntax import ast

_DYNAMIC_READS = ("holds", "amount")  # built-ins that test a condition or measure value


class Access:
    def __init__(self, program, symbols) -> None:
        self.program = program
        self.sym = symbols
        self._reads: dict[str, frozenset[str]] = {}
        self._writes: dict[str, frozenset[str]] = {}

    def is_state(self, name: str) -> bool:
        return self.sym.slot_of(name) is not None

    # ------------------------------------------------------------------ reads
    def reads(self, e) -> frozenset[str]:
        """The state an expression reads, through the derived values it calls."""
        out: set[str] = set()
        for node in ast.walk(e):
            if isinstance(node, ast.NameRef) and self.is_state(node.name):
                out.add(node.name)
            elif isinstance(node, ast.CallExpr):
                if node.base:
                    continue  # the replaced rule's body: `fn_reads` reads it with its heir
                kind = self.sym.kind.get(node.name)
                if kind in ("fn", *ast.TAGGED_KINDS):
                    out |= self.fn_reads(node.name)
                elif node.name in _DYNAMIC_READS:
                    for fn in self.program.get(ast.Fn):
                        if fn.kind in ("condition", "measure"):
                            out |= self.fn_reads(fn.name)
        return frozenset(out)

    def fn_reads(self, name: str) -> frozenset[str]:
        """The state a derived value reads, through the ones it calls."""
        if name not in self._reads:
            self._reads[name] = frozenset()  # a cycle is K207's; stop here meanwhile
            decl = self.sym.decls.get(name)
            body = getattr(decl, "body", None) if isinstance(decl, ast.Fn) else None
            found = self.reads(body) if body is not None else frozenset()
            base = decl.base if isinstance(decl, ast.Fn) else None
            while base is not None:
                found |= self.reads(base.body)
                base = base.base
            self._reads[name] = found
        return self._reads[name]

    # ------------------------------------------------------------------ writes
    def writes(self, s) -> frozenset[str]:
        """The state one statement writes itself (not the statements inside its blocks,
        nor the procedures it calls)."""
        targets: tuple[ast.Target | None, ...]
        if isinstance(s, (ast.Assign, ast.AddTo, ast.RemoveFrom, ast.Shuffle)):
            targets = (s.target,)
        elif isinstance(s, (ast.Move, ast.Draw)):
            targets = (s.source, s.dest)
        elif isinstance(s, ast.Spend):
            targets = (s.source, s.sink)
        else:
            targets = ()
        return frozenset(t.name for t in targets if t is not None and self.is_state(t.name))

    def body_writes(self, body) -> frozenset[str]:
        """The state a block writes, through the procedures and effects it runs."""
        out: set[str] = set()
        for node in ast.walk(body):
            if isinstance(node, ast.Statement):
                out |= self.writes(node)
            if isinstance(node, ast.CallStmt) and not node.base:
                out |= self.proc_writes(node.name)
            elif isinstance(node, (ast.Perform, ast.Trigger)):
                for proc in self.program.get(ast.Proc):
                    if proc.kind == "effect" or (
                        isinstance(node, ast.Trigger) and proc.kind == "window"
                    ):
                        out |= self.proc_writes(proc.name)
        return frozenset(out)

    def proc_writes(self, name: str) -> frozenset[str]:
        """The state a procedure writes, with the rules it replaced (what `base(...)` in it
        runs)."""
        if name not in self._writes:
            self._writes[name] = frozenset()  # recursion is K207's; stop here meanwhile
            decl = self.sym.decls.get(name)
            found: set[str] = set()
            while isinstance(decl, ast.Proc):
                found |= self.body_writes(decl.body)
                decl = decl.base
            self._writes[name] = frozenset(found)
        return self._writes[name]
