"""Frozen dataclasses that are quick to build.

Interpreting one workload builds dozens of small frozen records (instances, component
views, gang groups, the view itself). The ``__init__`` that ``dataclass(frozen=True)``
generates stores each field through ``object.__setattr__``, which costs several times a
plain store. :func:`quick_init` gives such a class an ``__init__`` with the same
parameters and defaults that fills the instance dictionary directly. Everything else
stays as the dataclass made it: assigning a field afterwards still raises, and equality,
hashing, ``repr`` and ``dataclasses.replace`` behave as before.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen dataclass (with ``__dict__``, no ``__post_init__``, no keyword-only or
    non-init fields) an ``__init__`` that stores its fields directly.

    Raises:
        TypeError: the class is not such a dataclass.
    """
    klass: Any = cls  # any class here; the checks below make sure it is a dataclass
    params = getattr(klass, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with an instance dictionary")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    namespace: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    signature: list[str] = []
    body: list[str] = []
    for field in dataclasses.fields(klass):
        name = field.name
        if not field.init or field.kw_only:
            raise TypeError(f"{cls.__name__}.{name} is keyword-only or not set by __init__")
        if field.default is not dataclasses.MISSING:
            namespace[f"default_{name}"] = field.default
            signature.append(f"{name}=default_{name}")
            body.append(f"    d[{name!r}] = {name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"factory_{name}"] = field.default_factory
            signature.append(f"{name}=MISSING")
            body.append(f"    d[{name!r}] = factory_{name}() if {name} is MISSING else {name}")
        else:
            signature.append(name)
            body.append(f"    d[{name!r}] = {name}")
    source = f"def __init__(self, {', '.join(signature)}):\n    d = self.__dict__\n"
    exec(source + "\n".join(body) + "\n", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)
    return cls
