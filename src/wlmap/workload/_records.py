"""Records that are quick to build: the pieces a view is made of.

Interpreting one workload builds dozens of small records (instances, component views,
gang groups, status evidence, the view itself). A frozen dataclass stores each field
through ``object.__setattr__`` (or, filled directly, through a materialized instance
dictionary), which costs about twice a plain class. :func:`record` makes a dataclass
with plain stores: its fields are read-only to the type checker (it sees a frozen
dataclass) but not enforced at run time. Equality, hashing (by value, as a frozen
dataclass hashes), ``repr`` and ``dataclasses.replace`` behave as a frozen dataclass's.
See docs/decisions/0018-plain-records.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform

    @overload
    def record(cls: type[T], /) -> type[T]: ...
    @overload
    def record(*, slots: bool = True) -> Callable[[type[T]], type[T]]: ...
    @dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
    def record(cls: Any = None, /, *, slots: bool = True) -> Any:
        """Type checker's view: a frozen dataclass."""

else:

    def record(cls=None, /, *, slots=True):
        """A dataclass with plain field stores, value equality and hashing.

        ``slots`` (the default) gives the instances no dictionary, which is quicker to
        build; a record with a :class:`lazy` value needs ``slots=False``.
        """

        def make(klass):
            return dataclasses.dataclass(klass, unsafe_hash=True, slots=slots)

        return make if cls is None else make(cls)


R = TypeVar("R")


class lazy(Generic[R]):
    """A value of a record worked out on first read, then kept in its dictionary.

    What ``functools.cached_property`` does, without the lock it takes on every first
    read before Python 3.12 (a view has several such values, most never read).
    """

    def __init__(self, compute: Callable[[Any], R]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> lazy[R]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> R: ...
    def __get__(self, instance: object, owner: type | None = None) -> R | lazy[R]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value
