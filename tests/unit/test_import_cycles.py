"""No import cycle among wlmap's modules: the layers contracts in pyproject.toml order the
packages, and this keeps the modules inside a package from leaning on each other in a
ring (a cycle once held 16 of the operator's modules together, through imports moved into
functions to dodge it; imports inside functions and under TYPE_CHECKING count here)."""

from __future__ import annotations

import grimp

# the jq parser's two halves: the term parser calls back into the expression parser
# it is part of, by design (one recursive-descent grammar in two files)
KNOWN = [["wlmap.jq._parser", "wlmap.jq._parser_terms"]]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph("wlmap")
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == KNOWN


def test_a_ring_of_imports_is_found() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]
