"""The protocol a front-end speaks: a seat's view, moves, events and sessions as JSON
(docs/protocol.md)."""

from interpreter.protocol.session import PROTOCOL, ProtocolError, Session

__all__ = ["PROTOCOL", "SCHEMAS", "ProtocolError", "Session", "schema_of"]


def schema_of(name: str) -> dict:
    """One of the protocol's JSON Schemas, by name: view, decision, event, move, error,
    save or schema (the file `interpreter/protocol/schemas/NAME.schema.json`)."""
    import json
    from importlib.resources import files

    text = files("interpreter.protocol").joinpath("schemas", f"{name}.schema.json").read_text()
    return json.loads(text)


SCHEMAS = ("view", "decision", "event", "move", "error", "save", "schema")
