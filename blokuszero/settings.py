"""Typed settings with ranges, checked once, before anything starts, with one line naming the setting.

A settings group is a frozen dataclass (usable as a Hydra structured config) whose fields are
declared with :func:`setting`, which records the allowed range or choices beside the default;
:class:`Settings` checks every field's type and range when an instance is made. The same
:func:`check_value` checks single options elsewhere (player specs, command-line options).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Collection, Mapping
from typing import Any, ClassVar, TypeVar

S = TypeVar("S", bound="Settings")


class SettingError(ValueError):
    """A setting with a wrong type or value; ``str()`` is one line naming the setting."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name, self.problem = name, problem

    def within(self, group: str) -> SettingError:
        """The same error, named inside ``group`` (``search`` + ``simulations``)."""
        return SettingError(f"{group}.{self.name}" if group else self.name, self.problem)


def setting(default: Any = dataclasses.MISSING, *, low: float | None = None, high: float | None = None,
            above: float | None = None, choices: Collection[Any] | None = None) -> Any:
    """A dataclass field with its default and allowed values: ``low <= value <= high``,
    ``value > above``, ``value in choices`` (numbers outside ``choices`` are allowed where the type
    admits numbers too, e.g. ``q_init``: a number or "parent")."""
    metadata = {"low": low, "high": high, "above": above, "choices": choices}
    if isinstance(default, (dict, list)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def like(group: type, name: str, default: Any = dataclasses.MISSING, **bounds: Any) -> Any:
    """A field declared as ``group``'s ``name`` (its range or choices), with another default
    where given and any of ``low``, ``high``, ``above``, ``choices`` replaced by ``bounds``:
    for a settings group that takes a setting declared elsewhere."""
    declared = next(f for f in dataclasses.fields(group) if f.name == name)
    if default is dataclasses.MISSING:
        default = declared.default
    return setting(default, **{**declared.metadata, **bounds})


def declared(*groups: type) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Every field of the settings ``groups``: name -> (type annotation, range and choices); the
    first group that declares a name wins."""
    found: dict[str, tuple[Any, dict[str, Any]]] = {}
    for group in groups:
        hints = typing.get_type_hints(group)
        for f in dataclasses.fields(group):
            found.setdefault(f.name, (hints[f.name], {k: v for k, v in f.metadata.items() if v is not None}))
    return found


def _type_name(kind: Any) -> str:
    return "None" if kind is type(None) else getattr(kind, "__name__", str(kind))


def check_value(name: str, value: Any, annotation: Any, *, low: float | None = None,
                high: float | None = None, above: float | None = None,
                choices: Collection[Any] | None = None) -> None:
    """SettingError unless ``value`` has the ``annotation``'s type (an int is a fine float; a bool
    is no number) and lies in the range or among the choices."""
    declared = typing.get_args(annotation) if isinstance(annotation, types.UnionType) or \
        typing.get_origin(annotation) is typing.Union else (annotation,)
    declared = tuple(typing.get_origin(a) or a for a in declared)  # dict[str, Any] -> dict
    if Any not in declared:
        allowed = tuple(t for a in declared for t in ((int, float) if a is float else (a,)))
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            raise SettingError(name, f"must be {' or '.join(_type_name(a) for a in declared)}, not {value!r}")
    if isinstance(value, str) or value is None or isinstance(value, bool):
        if choices is not None and isinstance(value, str) and value not in choices:
            raise SettingError(name, f"must be one of {sorted(choices)}, not {value!r}")
        return
    if not isinstance(value, (int, float)):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise SettingError(name, f"must be a finite number, not {value!r}")
    if low is not None and value < low:
        raise SettingError(name, f"must be >= {low:g}, not {value!r}")
    if high is not None and value > high:
        raise SettingError(name, f"must be <= {high:g}, not {value!r}")
    if above is not None and value <= above:
        raise SettingError(name, f"must be > {above:g}, not {value!r}")


class Settings:
    """Base of a settings dataclass: every field's type and range is checked on creation."""

    #: The config group the settings come from (``search``, ``train``), for error messages.
    GROUP: ClassVar[str] = ""

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            check_value(f.name, getattr(self, f.name), hints[f.name], **f.metadata)

    @classmethod
    def from_mapping(cls: type[S], values: Mapping[str, Any], group: str | None = None) -> S:
        """Settings from a config group's mapping; SettingError names an unknown or bad key."""
        group = cls.GROUP if group is None else group
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise SettingError(f"{group}.{unknown[0]}" if group else unknown[0],
                               f"is not a setting; known: {sorted(known)}")
        try:
            return cls(**values)
        except SettingError as err:
            raise err.within(group) from None
