"""What the pages read from a query string."""

from __future__ import annotations


def search_text(request, name: str = "q", limit: int = 100) -> str:
    """A search box's (or filter's) text: trimmed, at most ``limit`` characters, without NUL
    characters (PostgreSQL refuses them in a query, which would be a server error)."""
    return (request.GET.get(name) or "").replace("\x00", "").strip()[:limit]
