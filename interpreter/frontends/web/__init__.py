"""`knapper serve`: games in a browser over the protocol (docs/serve.md), kept in SQLite."""
