"""Semantics: an AST to one resolved, checked program (resolve, symbols, builtins, check).

Imports: dsl.syntax, dsl.errors, dsl.resources."""
