"""Small value classes (fields, defaults, equality, repr) without the ``dataclasses`` module.

``dataclasses`` imports ``inspect``, ``ast`` and ``dis`` and compiles each class's methods at
import: ~5 ms plus ~0.5 ms a class on every ``yoi search``, hook call and MCP start, for classes
that only hold a few fields (search hits, usage figures). A subclass names its ``__slots__`` in
order, with ``_defaults`` (values) and ``_factories`` (callables making a fresh default, like
``field(default_factory=...)``) for the optional ones; construction, ``==`` and ``repr`` follow the
field order as a dataclass's would.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar


class ValueClass:
    """Base of the plain value classes; see the module docstring."""

    __slots__ = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[dict[str, Callable[[], Any]]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self.__slots__
        if not kwargs and len(args) == len(names):  # every field given in order: the common case, fast
            for name, value in zip(names, args, strict=True):
                object.__setattr__(self, name, value)
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(names)} arguments ({len(args)} given)")
        values = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            values[name] = value
        for name in names:
            if name in values:
                value = values[name]
            elif name in self._defaults:
                value = self._defaults[name]
            elif name in self._factories:
                value = self._factories[name]()
            else:
                raise TypeError(f"{type(self).__name__}() missing required argument {name!r}")
            object.__setattr__(self, name, value)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls.__dict__.get("__slots__", ())
        if len(names) > 1:  # one C call for the field tuple: sorting 3,000 findings compared them 30,000 times
            get = attrgetter(*names)

            def values(self: ValueClass) -> tuple[Any, ...]:
                return get(self)  # type: ignore[no-any-return]

            cls._values = values  # type: ignore[method-assign]

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in order (``dataclasses.asdict`` for these flat classes)."""
        return dict(zip(self.__slots__, self._values(), strict=True))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self.__slots__, self._values(), strict=True))
        return f"{type(self).__name__}({inner})"


class FrozenValueClass(ValueClass):
    """A ``ValueClass`` whose fields cannot change after construction; hashable, like a frozen
    dataclass."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is immutable")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())
