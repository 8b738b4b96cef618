"""The warm command server: a client, a forking server, its workers (docs/architecture.md)."""

__all__: list[str] = []
