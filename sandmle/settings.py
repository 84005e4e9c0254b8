"""Settings tables: a Field per key, the one parser of YAML settings and KEY=VALUE overrides, and ConfigError.

Every key table imports this module (training runs in rl/config.py, campaigns in evaluation/config.py, the episode
budgets, the sampling schedule, the adaptive keys), so a key is checked and reported the same way wherever it is set.
A type this module does not know is checked by the Field's own `check` (key, value) function.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandmle.errors import UsageError

# Keys an older release spelled otherwise: a file that still says one is told the new name.
RENAMED_KEYS = {"max_response_tokens": "max_tokens"}

REQUIRED = object()
# Upper bounds: far above any real value, low enough that a runaway value is refused.
MAX_PATH_CHARS = 4096
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
# PyYAML reads YAML 1.1, where `1e-5` (no dot) is a string; such a string that is plainly a number is taken as one.
NUMBER_TEXT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$")


class ConfigError(UsageError):
    """One bad setting; `key` names it, str() reads "<key>: <what is wrong, what was expected>"."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key


@dataclass(frozen=True)
class Field:
    key: str
    type: str  # str, int, float, bool, path, paths, strs, choice, choices, options, env; any other needs `check`
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    min: float | None = None
    max: float | None = None
    nullable: bool = False
    min_exclusive: bool = False  # the value must lie above min, not at it
    reference: str | None = None  # the reference trainer's value and where it is set, where ours differs or matters
    # The checker of a type this module does not know (band, levels, lora): (key, value) -> the checked value, raising
    # UsageError. Its table's module owns it, so this module imports no key table.
    check: Callable[[str, Any], Any] | None = None

    def describe(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"key": self.key, "type": self.type,
                                 "default": None if self.default is REQUIRED else self.default, "help": self.help,
                                 "required": self.default is REQUIRED}
        for name in ("choices", "min", "max", "reference"):
            if getattr(self, name) is not None:
                entry[name] = list(self.choices) if name == "choices" else getattr(self, name)
        if self.min_exclusive:
            entry["min_exclusive"] = True
        return entry


def read_settings(source: dict | str | Path, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """The raw settings of a YAML file (or a dict) with KEY=VALUE overrides applied (lora.r=8 sets a nested one)."""
    import yaml

    if isinstance(source, dict):
        raw = dict(source)
    else:
        try:
            raw = yaml.safe_load(Path(source).read_text()) or {}
        except OSError as error:
            raise ConfigError("config", f"cannot read {source}: {error.strerror or error}") from None
        except (yaml.YAMLError, UnicodeDecodeError) as error:
            raise ConfigError("config", f"not valid YAML ({str(error).splitlines()[0]})") from None
        if not isinstance(raw, dict):
            raise ConfigError("config", "expected a mapping of settings at the top level")
    for override in overrides:
        key, sep, text = override.partition("=")
        if not sep or not key.strip():
            raise ConfigError(override or "--set", "expected KEY=VALUE")
        key = key.strip()
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError as error:
            raise ConfigError(key, f"not a valid YAML value ({str(error).splitlines()[0]})") from None
        if "." in key:
            head, sub = key.split(".", 1)
            nested = raw.get(head) if isinstance(raw.get(head), dict) else {}
            raw[head] = {**nested, sub: value}
        else:
            raw[key] = value
    return raw


def check_settings(raw: dict[str, Any], field_table: Sequence[Field]) -> dict[str, Any]:
    """Every field's checked value (defaults filled in); the first unknown key, bad type or range is a ConfigError."""
    fields = {f.key: f for f in field_table}
    unknown = sorted(map(str, set(raw) - set(fields)))  # a YAML key may be a number
    renamed = [key for key in unknown if RENAMED_KEYS.get(key) in fields]
    if renamed:
        raise ConfigError(renamed[0], f"renamed {RENAMED_KEYS[renamed[0]]}, its name in every settings table")
    if unknown:
        raise ConfigError(unknown[0], f"unknown setting; expected one of {', '.join(sorted(fields))}")
    return {key: check_value(spec, raw[key]) if key in raw else _default(spec) for key, spec in fields.items()}


def _default(spec: Field) -> Any:
    if spec.default is REQUIRED:
        raise ConfigError(spec.key, f"required ({spec.help})")
    if isinstance(spec.default, (list, dict)):
        return type(spec.default)(spec.default)
    return spec.default


def check_value(spec: Field, value: Any) -> Any:
    """One setting's checked value; ConfigError names the key and says what was expected."""
    if value is None:
        if spec.nullable:
            return None
        if spec.default is REQUIRED:
            raise ConfigError(spec.key, f"required ({spec.help})")
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not null")
    if spec.check is not None:
        return _own_check(spec, value)
    return _CHECKERS[spec.type](spec, value)


def shown_value(value: Any) -> str:
    """A refused value as the message shows it: cut short, so a huge value does not become a huge message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(spec: Field) -> str:
    return {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
            "path": "a path", "paths": "a list of paths", "env": "an environment variable name",
            "strs": "a list of strings",
            "choice": f"one of {', '.join(spec.choices or ())}",
            "choices": f"one or more of {', '.join(spec.choices or ())}", "options": "a mapping of options",
            "band": "[LOW, HIGH]", "levels": "[LOWEST, HIGHEST]",
            "lora": "null or a mapping {r, alpha, dropout, target_modules}"}[spec.type]


def _number(spec: Field, value: Any, *, integer: bool) -> float | int:
    if not integer and isinstance(value, str) and NUMBER_TEXT.match(value.strip()):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(spec.key, f"expected a finite number, not {shown_value(value)}")
    if spec.min is not None and spec.min_exclusive and value <= spec.min:
        raise ConfigError(spec.key, f"{shown_value(value)} must be above {spec.min}")
    if spec.min is not None and value < spec.min:
        raise ConfigError(spec.key, f"{shown_value(value)} is below the minimum {spec.min}")
    if spec.max is not None and value > spec.max:
        raise ConfigError(spec.key, f"{shown_value(value)} is above the maximum {spec.max}")
    return value if integer else float(value)


def _string(spec: Field, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    if "\x00" in value or len(value) > MAX_PATH_CHARS:
        raise ConfigError(spec.key, f"expected {_expected(spec)} of at most {MAX_PATH_CHARS} characters without NUL")
    return value


def _env_name(spec: Field, value: Any) -> str:
    if not isinstance(value, str) or not ENV_NAME.match(value):
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    return value


def _paths(spec: Field, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    for path in value:
        _string(spec, path)
    if not value and spec.default is REQUIRED:
        raise ConfigError(spec.key, "expected at least one path")
    return [str(v) for v in value]


def _choice(spec: Field, value: Any) -> str:
    if value not in (spec.choices or ()):
        raise ConfigError(spec.key, f"{shown_value(value)} is not {_expected(spec)}")
    return value


def _choice_list(spec: Field, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or any(item not in (spec.choices or ()) for item in value):
        raise ConfigError(spec.key, f"expected one or more of {', '.join(spec.choices or ())}, "
                                    f"not {shown_value(value)}")
    if len(set(value)) != len(value):
        raise ConfigError(spec.key, f"{shown_value(value)} names one twice")
    return list(value)


def _bool(spec: Field, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    return value


def _options(spec: Field, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ConfigError(spec.key, f"expected a mapping of option names to values, not {shown_value(value)}")
    return dict(value)


def _strs(spec: Field, value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(spec.key, f"expected {_expected(spec)}, not {shown_value(value)}")
    return list(value)


def _own_check(spec: Field, value: Any) -> Any:
    try:
        return spec.check(spec.key, value)
    except ConfigError:
        raise  # it names its key already (lora.r)
    except UsageError as error:
        raise ConfigError(spec.key, str(error).partition(": ")[2] or str(error)) from None


_CHECKERS = {
    "str": _string, "path": _string, "env": _env_name, "paths": _paths, "strs": _strs, "choice": _choice,
    "choices": _choice_list, "bool": _bool, "options": _options,
    "int": lambda spec, value: _number(spec, value, integer=True),
    "float": lambda spec, value: _number(spec, value, integer=False),
}


