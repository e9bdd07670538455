"""Code generation: a checked program to a Game (lower, link, emit).

Imports: dsl.semantics, dsl.syntax, interpreter.core."""
