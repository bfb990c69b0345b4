"""Where a suite's part lives, named without importing it: `"package.module:name"`, imported on first use.

A suite's declaration names its stages' functions and config classes this way (`Stage.run`, `Stage.config`,
`Suite.plan`), so declaring a suite loads nothing heavy: `lhl report` looks the clause suite up without importing
its extraction, judging or debate (issue #27). `Lazy` is the dataclass field that takes either the object itself or
its reference and always reads as the object, so whoever runs a stage reads `stage.run` as before. `lazy(module)`
spells the references of one module as attributes: `stages = lazy("lhl_platform.clause.stages")`, then
`stages.contracts` is `"lhl_platform.clause.stages:contracts"`.

This module imports nothing of the platform.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Ref(str):
    """A reference `"package.module:name"` (a dotted name after the colon reaches an attribute of an attribute)."""

    __slots__ = ()

    def __new__(cls, text: str) -> Ref:
        module, sep, name = text.partition(":")
        if not sep or not module or not name:
            raise ValueError(f"a reference is 'package.module:name', not {text!r}")
        return super().__new__(cls, text)

    def resolve(self) -> Any:
        module, _, name = self.partition(":")
        value: Any = importlib.import_module(module)  # an error inside the module is its own, raised as it is
        for part in name.split("."):
            try:
                value = getattr(value, part)
            except AttributeError:
                raise LookupError(f"cannot resolve {self}: {module} has no {name}") from None
        return value


class LazyModule:
    """The references of one module's names, spelled as its attributes (nothing is imported)."""

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Ref:
        if name.startswith("__"):  # copy, pickle and inspect probe dunders: this is no module
            raise AttributeError(name)
        return Ref(f"{self._module}:{name}")


def lazy(module: str) -> LazyModule:
    return LazyModule(module)


_NO_DEFAULT = object()


class Lazy(Generic[T]):
    """A field of a frozen dataclass given the object or its reference (`Ref`, or a str "module:name"); read, it is
    the object, imported on first read and kept. Refused at construction if the text is no reference."""

    def __init__(self, default: Any = _NO_DEFAULT) -> None:
        self._default = default
        self._slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_lazy_{name}"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> T: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> T:
        if obj is None:  # the class's attribute: what a dataclass takes as the field's default
            if self._default is _NO_DEFAULT:
                raise AttributeError(self._slot)
            return self._default  # type: ignore[no-any-return]
        value = obj.__dict__[self._slot]
        if isinstance(value, Ref):
            value = value.resolve()
            obj.__dict__[self._slot] = value  # resolved once (the dataclass is frozen to its users, not to this)
        return value  # type: ignore[no-any-return]

    def __set__(self, obj: object, value: T | str) -> None:
        obj.__dict__[self._slot] = Ref(value) if isinstance(value, str) else value

