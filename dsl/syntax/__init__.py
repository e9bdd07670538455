"""Syntax: the grammar's text to an AST and back (parse, ast, visitor, fmt).

Imports: dsl.errors and dsl.resources only."""
