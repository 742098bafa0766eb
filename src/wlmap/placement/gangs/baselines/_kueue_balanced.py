"""Kueue's BalancedPlacement: an even spread over the fewest domains under one parent.

Follows KEP 2724 "Balanced placement" and ``pkg/cache/scheduler/tas_balanced_placement.go``
(without leaders). For a preferred level ``P``:

1. For each domain ``H`` of level ``P - 1`` (all top domains together when ``P == 0``),
   take its children at ``P`` and their children at ``P + 1`` (the ``P`` domains themselves
   when ``P`` is the slice level or below). Greedily, in BestFit order, count how many of
   those lower domains hold every slice; ``T`` is slices // that count, capped by the last
   domain's slices: the largest achievable minimum per lower domain.
2. Prune every child below ``T`` slices, recount the ``P`` domains, drop those below ``T``,
   and count again how many ``P`` domains hold the request. Keep the ``H`` with the largest
   ``T``, then the fewest ``P`` domains; the first such ``H`` on ties.
3. At ``P``, choose the subset of as many domains as the greedy count with the least total
   capacity that still holds the request (ties by capacity, then entropy of the children's
   capacities, then order), and the same one level down among their children.
4. Every chosen domain gets ``T`` slices; the rest go, in BestFit order, each domain up to
   its capacity.

None when no ``H`` holds the request or a step fails: Kueue then falls back to BestFit.
Between the chosen level and the slice level the descent counts whole slices per child;
Kueue recounts them there as pods // slice size, which can count a slice split between
two children, and then fails further down where this model does not.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.baselines._domain_walk import IntArray, tree_index
from wlmap.placement.gangs.baselines._kueue_counts import Counts, greedy_count, ordered
from wlmap.placement.gangs.capacity import FreeCapacity

_Choice = tuple[int, int, IntArray, IntArray, IntArray]
"""The threshold T, the preferred-level domains needed, the group, and its pruned counts."""


def balanced_domains(
    capacity: FreeCapacity, c: Counts, preferred: int, need: int
) -> tuple[int, list[tuple[int, int]]] | None:
    """The level and (domain, pods) pairs BalancedPlacement starts its descent from."""
    topology = capacity.topology
    children = tree_index(topology).children
    best = _best_group(capacity, c, preferred, need)
    if best is None or best[0] <= 0:
        return None
    threshold, _, group, slices, pods = best
    if preferred < c.slice_level:
        entropy = _entropies(c, children, group, preferred, threshold)
        chosen = _optimal_subset(group, slices, pods, need, c.slice_size, entropy)
        if chosen is None:
            return None
        candidates = np.concatenate([children[preferred][d] for d in chosen.tolist()])
        level = preferred + 1
        sub_slices, sub_pods = _prune_level(c.slices[level], c.pods[level], candidates, threshold)
    else:
        candidates, level, sub_slices, sub_pods = group, preferred, slices, pods
    result = _optimal_subset(candidates, sub_slices, sub_pods, need, c.slice_size, None)
    if result is None or need < len(result) * threshold:
        return None
    extra = need - len(result) * threshold
    picks: list[tuple[int, int]] = []
    for domain in ordered(result, sub_slices, sub_pods, least_free=False).tolist():
        more = min(int(sub_slices[domain]) - threshold, extra)
        picks.append((domain, (threshold + more) * c.slice_size))
        extra -= more
    if extra > 0:
        return None
    return level, picks


def _best_group(capacity: FreeCapacity, c: Counts, preferred: int, need: int) -> _Choice | None:
    """Steps 1 and 2: the parent whose children allow the largest even minimum."""
    topology = capacity.topology
    children = tree_index(topology).children
    if preferred == 0:
        groups = [np.arange(topology.domain_count(0), dtype=np.int64)]
    else:
        groups = list(children[preferred - 1])
    lower_level = preferred + 1 if preferred < c.slice_level else preferred
    node_level = len(topology.levels)
    child_up: IntArray | None = None
    if preferred + 1 < node_level:
        child_up = topology.parent[preferred + 1]
    elif preferred < node_level:
        child_up = topology.node_domain[preferred]
    best: _Choice | None = None
    for group in groups:
        lower = _lower(children, group, preferred, lower_level)
        greedy = greedy_count(lower, c.slices[lower_level], c.pods[lower_level], need)
        if greedy is None:
            continue
        used, last = greedy
        threshold = min(need // used, last)
        if best is not None and threshold < best[0]:
            continue
        kids = lower
        if lower_level == preferred and child_up is not None:
            kids = _lower(children, group, preferred, preferred + 1)
        slices, pods = _pruned(c, child_up, kids, group, preferred, threshold)
        after = greedy_count(group, slices, pods, need)
        if after is None:
            continue
        if best is None or threshold > best[0] or after[0] < best[1]:
            best = (threshold, after[0], group, slices, pods)
    return best


def _lower(
    children: tuple[tuple[IntArray, ...], ...], group: IntArray, level: int, lower: int
) -> IntArray:
    if lower == level:
        return group
    return np.concatenate([children[level][d] for d in group.tolist()])


def _prune_level(
    slices: IntArray, pods: IntArray, domains: IntArray, threshold: int
) -> tuple[IntArray, IntArray]:
    slices, pods = slices.copy(), pods.copy()
    low = domains[slices[domains] < threshold]
    slices[low] = 0
    pods[low] = 0
    return slices, pods


def _pruned(
    c: Counts,
    child_up: IntArray | None,
    kids: IntArray,
    group: IntArray,
    level: int,
    threshold: int,
) -> tuple[IntArray, IntArray]:
    """Slices and pods per domain of ``level`` after pruning children below ``threshold``.

    ``kids`` are the children (at ``level + 1``) of the ``group`` domains, ``child_up`` maps
    every domain of ``level + 1`` to its parent.
    """
    slices, pods = c.slices[level].copy(), c.pods[level].copy()
    if child_up is not None:
        kept = c.slices[level + 1][kids] >= threshold
        count = len(pods)
        up = child_up[kids]
        kept_pods = np.bincount(up, weights=c.pods[level + 1][kids] * kept, minlength=count)
        pods[group] = kept_pods[group].astype(np.int64)
        if level == c.slice_level:
            slices[group] = pods[group] // c.slice_size
        elif level < c.slice_level:
            weights = c.slices[level + 1][kids] * kept
            slices[group] = np.bincount(up, weights=weights, minlength=count)[group].astype(
                np.int64
            )
    low = group[slices[group] < threshold]
    slices[low] = 0
    pods[low] = 0
    return slices, pods


def _entropy(values: IntArray) -> float:
    total = int(values.sum())
    if total <= 0:
        return 0.0
    shares = values[values > 0] / total
    return float(-(shares * np.log2(shares)).sum())


def _entropies(
    c: Counts,
    children: tuple[tuple[IntArray, ...], ...],
    group: IntArray,
    level: int,
    threshold: int,
) -> npt.NDArray[np.float64]:
    """Per domain of ``group``: the entropy of its kept children's pod capacities."""
    values = []
    for domain in group.tolist():
        kids = children[level][domain]
        kept = np.where(c.slices[level + 1][kids] >= threshold, c.pods[level + 1][kids], 0)
        values.append(_entropy(kept))
    return np.array(values, dtype=np.float64)


def _optimal_subset(
    domains: IntArray,
    slices: IntArray,
    pods: IntArray,
    need: int,
    size: int,
    entropy: npt.NDArray[np.float64] | None,
) -> IntArray | None:
    """``selectOptimalDomainSetToFit``: as few domains as greedy needs, least total pods.

    A subset-sum over "pods still to place", one boolean row per number of domains used;
    the first domain (in the order) to reach a state keeps it, as Kueue's map does.
    """
    greedy = greedy_count(domains, slices, pods, need)
    if greedy is None:
        return None
    count = greedy[0]
    if entropy is None:
        order = np.sort(domains)
    else:
        order = domains[np.lexsort((domains, -entropy, -slices[domains]))]
    target = need * size
    span = int(pods[order].sum())
    width = target + span + 1
    reach = np.zeros((count + 1, width), dtype=bool)
    came = np.full((count + 1, width), -1, dtype=np.int64)
    offset = span
    reach[0, target + offset] = True
    for position, domain in enumerate(order.tolist()):
        if slices[domain] <= 0:
            continue
        shift = int(pods[domain])
        for used in range(count, 0, -1):
            before = reach[used - 1].copy()
            before[: offset + 1] = False
            if shift:
                moved = np.zeros(width, dtype=bool)
                moved[:-shift] = before[shift:]
            else:
                moved = before
            new = moved & ~reach[used]
            reach[used] |= new
            came[used][new] = position
    done = np.flatnonzero(reach[count][: offset + 1])
    if len(done) == 0:
        return None
    at = int(done[-1])
    picked: list[int] = []
    for used in range(count, 0, -1):
        position = int(came[used][at])
        domain = int(order[position])
        picked.append(domain)
        at += int(pods[domain])
    return np.array(sorted(picked), dtype=np.int64)
