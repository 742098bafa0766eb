"""Reading an objective file, reporting every problem at once with its field path.

Shape errors come from the models (a negative weight, an unknown key or term, a value of
the wrong type); rules that tie fields together are checked on the raw document, so they
are reported even when a field is also malformed: both ``weights`` and ``tiers`` (or
neither), a term ranked twice, ``gpus`` and ``percent`` together, all weights zero, and pair
weights that grow towards finer levels.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from wlmap.errors import DefinitionError, Problem
from wlmap.placement.gangs.objective._objective import (
    TERMS,
    BalanceTerm,
    CommunicationTerm,
    Objective,
    PriorityTerm,
    SpareCapacityTerm,
    TermSettings,
    TermWeights,
    Tier,
    TierWeightsSpec,
    WholeFreeDomainsTerm,
)

__all__ = [
    "DEFAULT_OBJECTIVE",
    "ObjectiveError",
    "default_objective",
    "load_objective",
    "objective_from_mapping",
    "parse_objective",
]

DEFAULT_OBJECTIVE = "default.yaml"

# The model behind each mapping of the file, by field path with list indices dropped.
_MODELS: dict[str, type[BaseModel]] = {
    "": Objective,
    "weights": TermWeights,
    "tiers[]": Tier,
    "terms": TermSettings,
    "terms.communication": CommunicationTerm,
    "terms.communication.tierWeights": TierWeightsSpec,
    "terms.wholeFreeDomains": WholeFreeDomainsTerm,
    "terms.spareCapacity": SpareCapacityTerm,
    "terms.balance": BalanceTerm,
    "terms.priority": PriorityTerm,
}


class ObjectiveError(DefinitionError):
    """An objective file cannot be read or is invalid; carries every problem found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        self.args = (f"{len(self.problems)} problem(s) in gang objective:\n{lines}",)


def objective_from_mapping(data: Any, origin: str = "<objective>") -> Objective:
    """Validate a decoded objective document.

    Raises:
        ObjectiveError: with every problem found.
    """
    if not isinstance(data, Mapping):
        raise ObjectiveError([Problem(origin, "", f"expected a mapping, got {_short(data)}")])
    problems = _cross_checks(data, origin)
    objective: Objective | None = None
    try:
        objective = Objective.model_validate(data)
    except ValidationError as exc:
        problems = [*(_problem(origin, err) for err in exc.errors()), *problems]
    if problems or objective is None:
        raise ObjectiveError(problems)
    return objective


def parse_objective(text: str, origin: str = "<objective>") -> Objective:
    """Parse and validate an objective from YAML (or JSON) text.

    Raises:
        ObjectiveError: the text is not YAML, or the objective is invalid.
    """
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ObjectiveError([Problem(origin, where, f"malformed YAML: {exc.problem}")]) from None
    except yaml.YAMLError as exc:
        raise ObjectiveError([Problem(origin, "", f"malformed YAML: {exc}")]) from None
    return objective_from_mapping(data, origin)


def load_objective(path: str | Path) -> Objective:
    """Read and validate an objective file.

    Raises:
        ObjectiveError: the file cannot be read or holds an invalid objective.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ObjectiveError([Problem(str(path), "", f"cannot read: {exc}")]) from None
    return parse_objective(text, str(path))


def default_objective() -> Objective:
    """The objective shipped with wlmap (``default.yaml`` next to this module)."""
    text = resources.files(__package__).joinpath(DEFAULT_OBJECTIVE).read_text(encoding="utf-8")
    return parse_objective(text, DEFAULT_OBJECTIVE)


def _cross_checks(data: Mapping[str, Any], origin: str) -> list[Problem]:
    problems: list[Problem] = []
    weights, tiers = data.get("weights"), data.get("tiers")
    if weights is not None and tiers is not None:
        problems.append(Problem(origin, "tiers", "set either weights or tiers, not both"))
    elif weights is None and tiers is None:
        problems.append(
            Problem(origin, "weights", "required: weights (a weighted sum) or tiers (ranked)")
        )
    if isinstance(weights, Mapping) and weights and not any(_positive(v) for v in weights.values()):
        problems.append(Problem(origin, "weights", "at least one term needs a weight above 0"))
    if tiers == []:
        problems.append(Problem(origin, "tiers", "expected at least one tier"))
    if isinstance(tiers, list):
        seen: dict[Any, int] = {}
        for index, tier in enumerate(tiers):
            term = tier.get("term") if isinstance(tier, Mapping) else None
            if isinstance(term, str) and term in seen:
                problems.append(
                    Problem(
                        origin,
                        f"tiers[{index}].term",
                        f"term {term!r} is already ranked at tiers[{seen[term]}]; rank a term once",
                    )
                )
            seen.setdefault(term, index)
    terms = data.get("terms")
    terms = terms if isinstance(terms, Mapping) else {}
    spare = terms.get("spareCapacity")
    if isinstance(spare, Mapping) and ("gpus" in spare) == ("percent" in spare):
        problems.append(
            Problem(origin, "terms.spareCapacity", "set exactly one of gpus or percent")
        )
    communication = terms.get("communication")
    if isinstance(communication, Mapping):
        problems.extend(_ladder(communication.get("tierWeights"), origin))
    return problems


def _ladder(spec: Any, origin: str) -> list[Problem]:
    """Pair weights must not grow towards finer levels: across >= levels... >= node."""
    if not isinstance(spec, Mapping) or not isinstance(spec.get("levels"), list):
        return []
    path = "terms.communication.tierWeights"
    ladder: list[tuple[str, Any]] = [("across", spec.get("across"))]
    ladder += [(f"levels[{i}]", v) for i, v in enumerate(spec["levels"])]
    ladder.append(("node", spec.get("node", 0.0)))
    problems: list[Problem] = []
    for (above_name, above), (name, value) in itertools.pairwise(ladder):
        if _number(above) and _number(value) and value > above:
            problems.append(
                Problem(
                    origin,
                    f"{path}.{name}",
                    f"a pair sharing a finer domain cannot cost more: expected <= {above} "
                    f"({above_name}), got {value}",
                )
            )
    return problems


def _problem(origin: str, error: Any) -> Problem:
    loc = tuple(error.get("loc", ()))
    path = _render(loc)
    kind = error.get("type", "")
    if kind == "missing":
        return Problem(origin, path, "required field is missing")
    if kind == "extra_forbidden":
        parent = _render(loc[:-1], indices=False)
        model = _MODELS.get(parent)
        known = ", ".join(_aliases(model)) if model else ""
        what = "term" if parent == "weights" else "key"
        return Problem(origin, path, f"unknown {what}; expected one of {known}")
    given = _short(error.get("input"))
    if kind == "literal_error" and path.endswith(".term"):
        return Problem(origin, path, f"unknown term {given}; expected one of {', '.join(TERMS)}")
    return Problem(origin, path, f"{error.get('msg', 'invalid value')}; got {given}")


def _aliases(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _render(loc: Iterable[Any], *, indices: bool = True) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]" if indices else "[]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _positive(value: Any) -> bool:
    # Only all-zero weights are this problem; a negative or malformed one is reported apart.
    return not _number(value) or value != 0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
