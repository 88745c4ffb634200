"""The plain value classes (core/value_class.py) construct as the dataclasses they replaced did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from yoi_tui.core.value_class import FrozenValueClass, ValueClass


class Point(ValueClass):
    __slots__ = ("x", "y", "tags")
    _defaults: ClassVar[dict[str, Any]] = {"y": 0}
    _factories: ClassVar[dict[str, Callable[[], Any]]] = {"tags": list}


class Pair(FrozenValueClass):
    __slots__ = ("a", "b")


def test_every_way_of_giving_the_fields() -> None:
    assert Point(1, 2, ["t"]).as_dict() == {"x": 1, "y": 2, "tags": ["t"]}  # all positional (the fast path)
    assert Point(1).as_dict() == {"x": 1, "y": 0, "tags": []}
    assert Point(x=1, tags=["u"]).as_dict() == {"x": 1, "y": 0, "tags": ["u"]}
    assert Point(1, tags=["v"]) == Point(1, 0, ["v"])
    first, second = Point(1), Point(1)
    first.tags.append("own")
    assert second.tags == []  # a factory per instance
    assert Pair(1, 2) == Pair(a=1, b=2) and hash(Pair(1, 2)) == hash(Pair(b=2, a=1))


@pytest.mark.parametrize("make", [
    lambda: Point(1, 2, [], 4),  # too many
    lambda: Point(y=2),  # x missing
    lambda: Point(1, x=2),  # twice
    lambda: Point(1, z=3),  # unknown
    lambda: Pair(1),  # b missing
])
def test_wrong_arguments_raise_type_error(make: Callable[[], Any]) -> None:
    with pytest.raises(TypeError):
        make()


def test_frozen_fields_cannot_change() -> None:
    pair = Pair(1, 2)
    with pytest.raises(AttributeError):
        pair.a = 3  # type: ignore[misc]
