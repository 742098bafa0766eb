"""CEL device selectors, evaluated with the ``common-expression-language`` package.

The environment is the one the API defines for selectors: a ``device`` variable with
``driver``, ``attributes[<domain>].<name>`` and ``capacity[<domain>].<name>``. As in the
API, a domain the device has nothing in is an empty map, so ``has(...)`` and ``in`` work
on it and a field read from it is an error. Capacities are integers in base units;
``quantity("40Gi")`` gives the same, and ``semver("1.2.3")`` a version. The comparison
helpers of the Kubernetes CEL library (``compareTo``, ``isGreaterThan``, ``isLessThan``)
compare two quantities or two versions.

Each distinct expression is compiled once; each (expression, device) pair is evaluated
once, since devices do not change while a plan is made. A compile error, a runtime error
or a result that is not a bool is a :class:`PlacementInputError` naming the class or claim,
the selector and the device.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from typing import Any

import cel

from wlmap.errors import PlacementInputError, WlmapError
from wlmap.placement.devices.dra_objects import Device, Version
from wlmap.quantity import parse_quantity

__all__ = ["SelectorEngine"]

_DOMAIN = re.compile(r"""device\s*\.\s*(?:attributes|capacity)\s*\[\s*["']([^"']+)["']\s*\]""")
_SEMVER = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?")
# The engine also logs a failing Python function (quantity("x")) to the "cel" logger before
# raising; the failure is reported once, as the input error below, so the log is muted.
_ENGINE_LOG = logging.getLogger("cel")
_ENGINE_LOG.addHandler(logging.NullHandler())
_ENGINE_LOG.propagate = False


def _version_key(text: str) -> tuple[int, int, int, int, str]:
    match = _SEMVER.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a semantic version")
    # a pre-release sorts before its release
    pre = match[4] or ""
    return (int(match[1]), int(match[2]), int(match[3]), 0 if pre else 1, pre)


def _ordered(a: object, b: object) -> int:
    if isinstance(a, str) and isinstance(b, str):
        ka, kb = _version_key(a), _version_key(b)
        return (ka > kb) - (ka < kb)
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool | float):
        return (a > b) - (a < b)
    raise TypeError(f"cannot compare {a!r} with {b!r}: expected two quantities or two versions")


def _semver(text: object) -> str:
    _version_key(str(text))
    return str(text)


def _quantity(text: object) -> int:
    try:
        return math.ceil(parse_quantity(text))
    except WlmapError as exc:
        raise ValueError(str(exc)) from None


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "semver": _semver,
    "quantity": _quantity,
    "compareTo": _ordered,
    "isGreaterThan": lambda a, b: _ordered(a, b) > 0,
    "isLessThan": lambda a, b: _ordered(a, b) < 0,
}


class SelectorEngine:
    """Compiles selectors once and answers whether a device matches them.

    Results are cached by device identity (driver, pool, name), so one engine serves one
    inventory.

    Args:
        file: where the selectors were read from, for error messages.
    """

    def __init__(self, file: str = "") -> None:
        self.file = file
        self._programs: dict[str, cel.Program] = {}
        self._domains: set[str] = set()
        self._contexts: dict[tuple[str, str, str], cel.Context] = {}
        self._results: dict[tuple[str, tuple[str, str, str]], bool] = {}

    def matches(self, device: Device, selectors: tuple[str, ...], owner: str) -> bool:
        """Whether ``device`` satisfies every selector (ANDed, in order, stopping at the
        first false one as the API does).

        Args:
            device: the device.
            selectors: CEL expressions.
            owner: who holds the selectors, e.g. ``DeviceClass gpu.nvidia.com`` or
                ``ResourceClaimTemplate ml/gpu request gpu``; used in error messages.

        Raises:
            PlacementInputError: a selector does not compile, fails on this device, or
                gives something other than a bool.
        """
        for index, expression in enumerate(selectors):
            key = (expression, device.key)
            found = self._results.get(key)
            if found is None:
                found = self._evaluate(device, expression, f"{owner} selector #{index}")
                self._results[key] = found
            if not found:
                return False
        return True

    def _program(self, expression: str, where: str) -> cel.Program:
        program = self._programs.get(expression)
        if program is None:
            try:
                program = cel.compile(expression)
            except Exception as exc:  # the engine's errors have no common base class
                raise self._fail(where, expression, f"does not compile: {exc}") from None
            self._programs[expression] = program
            domains = set(_DOMAIN.findall(expression))
            if not domains <= self._domains:
                self._domains |= domains
                self._contexts.clear()  # contexts need the new empty domains
        return program

    def _evaluate(self, device: Device, expression: str, where: str) -> bool:
        program = self._program(expression, where)
        context = self._contexts.get(device.key)
        if context is None:
            context = cel.Context({"device": self._device(device)}, functions=_FUNCTIONS)
            self._contexts[device.key] = context
        try:
            result = program.execute(context)
        except Exception as exc:  # runtime, key, type and arithmetic errors alike
            reason = f"no such key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise self._fail(
                where, expression, f"fails on device {'/'.join(device.key)}: {reason}"
            ) from None
        if not isinstance(result, bool):
            raise self._fail(
                where,
                expression,
                f"gives {result!r} on device {'/'.join(device.key)}; expected a bool",
            )
        return result

    def _device(self, device: Device) -> dict[str, Any]:
        attributes: dict[str, dict[str, Any]] = {d: {} for d in self._domains}
        for name, value in device.attributes.items():
            domain, _, short = name.rpartition("/")
            attributes.setdefault(domain, {})[short] = (
                value.text if isinstance(value, Version) else value
            )
        capacity: dict[str, dict[str, int]] = {d: {} for d in self._domains}
        for name, amount in device.capacity.items():
            domain, _, short = name.rpartition("/")
            capacity.setdefault(domain, {})[short] = amount
        return {"driver": device.driver, "attributes": attributes, "capacity": capacity}

    def _fail(self, where: str, expression: str, message: str) -> PlacementInputError:
        return PlacementInputError(
            f"{where}: CEL expression {expression!r} {message}",
            file=self.file,
            row=None,
            column=None,
        )
