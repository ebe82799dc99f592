"""How a settings object is made from a config block and back (:func:`build`, :func:`as_block`), and the helpers
the dataclasses of :mod:`mtsig.settings` use for their defaults (:func:`_readonly`). Standard library only."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import field
from typing import Any, TypeVar

from mtsig.errors import InputError

Settings = TypeVar("Settings")


def _frozen(value: Any) -> Any:
    """Lists as tuples and mappings as read-only mappings, all the way down."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: _frozen(v) for k, v in value.items()})
    return value


def _readonly(values: Mapping[str, Any] | None = None) -> Any:
    """A field default that is a read-only mapping (a dataclass refuses a plain dict as a default)."""
    return field(default_factory=lambda: _frozen(dict(values or {})))


def _dataclass_in(annotation: Any) -> type | None:
    """The settings dataclass a field holds (``Clusters``, ``Clusters | None``), if any."""
    candidates = (
        annotation,
        *(a for a in typing.get_args(annotation) if typing.get_origin(annotation) is not Mapping),
    )
    return next((c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)), None)


def _mapping_of_dataclass(annotation: Any) -> type | None:
    """The dataclass of the values of a ``Mapping[str, X]`` field (``protocols: Mapping[str, ProtocolTests]``)."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(candidate) is Mapping:
            value_type = typing.get_args(candidate)[1]
            if isinstance(value_type, type) and dataclasses.is_dataclass(value_type):
                return value_type
    return None


def has_default(cls: type, name: str) -> bool:
    """Whether field ``name`` of the settings dataclass ``cls`` has a default (the setting is optional)."""
    spec = cls.__dataclass_fields__[name]  # type: ignore[attr-defined]
    return spec.default is not dataclasses.MISSING or spec.default_factory is not dataclasses.MISSING


def default_of(cls: type, name: str) -> Any:
    """The default of field ``name`` of the settings dataclass ``cls`` (its factory's value for a block)."""
    spec = cls.__dataclass_fields__[name]  # type: ignore[attr-defined]
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    if spec.default is dataclasses.MISSING:
        raise KeyError(f"{cls.__name__}.{name} has no default")
    return spec.default


def build(cls: type[Settings], block: Mapping[str, Any] | None = None, where: str = "") -> Settings:
    """The settings object ``cls`` of a config block (none: every default): each field from the block or its
    default, nested blocks as their own dataclasses, lists as tuples, mappings read-only.

    Raises:
        InputError: the block has a key ``cls`` does not know, or lacks a field that has no default.
    """
    if isinstance(block, cls):
        return block
    block = {} if block is None else block
    name = where or cls.__name__
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(block) - set(fields))
    missing = sorted(f for f in fields if f not in block and not has_default(cls, f))
    if unknown or missing:
        problems = [f"unknown key(s) {', '.join(unknown)}"] * bool(unknown)
        problems += [f"missing key(s) {', '.join(missing)}"] * bool(missing)
        raise InputError(f"settings {name}: {'; '.join(problems)}")
    values = {}
    for key in fields:
        if key not in block:
            continue
        value = block[key]
        nested, values_of = _dataclass_in(hints[key]), _mapping_of_dataclass(hints[key])
        if values_of is not None and isinstance(value, Mapping):
            values[key] = types.MappingProxyType(
                {k: build(values_of, v, f"{name}.{key}.{k}") for k, v in value.items()}
            )
        elif nested is not None and isinstance(value, Mapping):
            values[key] = build(nested, value, f"{name}.{key}")
        else:
            values[key] = _as_annotated(_frozen(value), hints[key])
    return cls(**values)


def _as_annotated(value: Any, annotation: Any) -> Any:
    """An integer of a ``float`` field (the schema's ``number``: YAML reads ``10`` as an int) as a float, alone or
    in a tuple of floats."""
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if typing.get_origin(annotation) is tuple and typing.get_args(annotation) == (float, ...):
        return tuple(_as_annotated(v, float) for v in value)
    return value


def as_block(settings: Any) -> Any:
    """A settings object back as a plain config block (lists and dicts), e.g. to record it in a manifest or to pass
    it as a rule's ``params`` (which Snakemake compares as plain values)."""
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        return {f.name: as_block(getattr(settings, f.name)) for f in dataclasses.fields(settings)}
    if isinstance(settings, tuple | list):
        return [as_block(v) for v in settings]
    if isinstance(settings, Mapping):
        return {k: as_block(v) for k, v in settings.items()}
    return settings


def given_fields(settings: Any) -> dict[str, Any]:
    """The fields of a settings object that are set (not None), as a plain block: the options a block of optional
    keys passes on (``bleu: {tokenize: zh}`` -> ``{"tokenize": "zh"}``)."""
    return {k: v for k, v in as_block(settings).items() if v is not None}
