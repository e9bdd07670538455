"""The engine core: Game, State and its run loop, the runtime helpers of compiled code, the
generator.

Imports: dsl.errors and dsl.syntax only (never Lark, never the checker or the code
generator), so a server, an adapter or an agent can run games without the compiler.
"""
