"""Tools built on the front end: lint, diff, the generated rulebook.

Imports: any layer of dsl, and interpreter.core."""
