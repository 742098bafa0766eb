"""Reading an exposition back in tests, with the Prometheus client library's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Sample = tuple[str, dict[str, str], float]


def samples(text: str) -> list[Sample]:
    """Every sample of an exposition: name, labels and value (the parser's reading)."""
    return [
        (s.name, dict(s.labels), s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


def values(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of one series name, by their sorted label pairs."""
    return {tuple(sorted(labels.items())): value for n, labels, value in samples(text) if n == name}


def one(text: str, name: str, **labels: str) -> float:
    """The value of the one sample of ``name`` whose labels include ``labels``."""
    found = [
        value
        for n, have, value in samples(text)
        if n == name and all(have.get(k) == v for k, v in labels.items())
    ]
    assert len(found) == 1, (name, labels, found)
    return found[0]
