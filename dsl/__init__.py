"""Knapper's language front end: text -> AST -> resolved program -> checked -> compiled Game.

`dsl.pipeline.compile_text` and `compile_path` run the whole pipeline; each stage is its own
module: parse, resolve, check, compile.
"""
