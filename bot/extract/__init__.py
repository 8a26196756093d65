"""Fact extractors: (rule source, path, text) -> facts. Pure; stdlib `ast` only."""
