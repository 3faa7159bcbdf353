"""The rules a dataset manifest follows, in one place, checked before anything is generated.

A manifest is a JSON object:

    lab       a name (letters, digits, `_`, `-`, `.`; starts with a letter, digit or `_`)
    dtype     one of DTYPES
    about     optional text
    defaults  optional object: case fields every case gets unless it sets them
    cases     a non-empty list of objects, each (defaults filled in) with
              name          a name as above, unique; it becomes the file `<name>.bin`
              distribution  one of datasets.distributions.DISTRIBUTIONS
              n             an integer from 1 to MAX_N
              seed          an integer from 0 to 2^64 - 1
              and the distribution's parameters (PARAMETERS): `low < high`, values an
              integer of the dtype's range for int32, a finite float32 for float32,
              `hot_fraction` in [0, 1]; corrupted_image (int32 only): `pixels` at most
              n and grey levels 0 <= low < high <= 256; rgba_image (int32 only, a
              packed pixel each): `grey_fraction` at most 0.5.

A broken rule is one line: where (the manifest or the case), the field, the rule.
Plain Python rather than jsonschema: no dependency for students, and messages that
name the case.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from datasets.distributions import DISTRIBUTIONS

# 1 GiB of 4-byte values: 8 times the largest case of any lab (2^25), and still an
# int32 count for the lab programs. Generating it needs about 3 GiB of memory.
MAX_N = 2**28
MAX_SEED = 2**64 - 1
INT32 = (-(2**31), 2**31 - 1)
FLOAT32_MAX = 3.4028234663852886e38
DTYPES = ("int32", "float32")
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")  # a file name, never a path

# Parameters each distribution needs (required, optional), beyond name, distribution, n, seed.
PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "uniform": (("low", "high"), ()),
    "contention": (("low", "high", "hot_fraction"), ("hot_value",)),
    "constant": (("value",), ()),
    "signed_magnitude": (("low", "high"), ()),
    "corrupted_image": (("pixels", "low", "high"), ("hot_fraction",)),
    "rgba_image": ((), ("hot_fraction", "grey_fraction")),
}
CASE_REQUIRED = ("name", "distribution", "n", "seed")
MANIFEST_REQUIRED = ("lab", "dtype", "cases")

# A rule: (value, dtype) -> what is wrong with the value, or None.
Rule = Callable[[Any, str], str | None]


class SchemaError(ValueError):
    """One broken rule of the manifest: where, which field, which rule."""

    def __init__(self, where: str, field: str | None, rule: str) -> None:
        at = f"{where}: field {field!r}" if field is not None else where
        super().__init__(f"{at}: {rule}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer(low: int, high: int) -> Rule:
    def rule(value: Any, dtype: str) -> str | None:
        del dtype
        if _is_int(value) and low <= value <= high:
            return None
        return f"must be an integer from {low} to {high}, not {_shown(value)}"

    return rule


def _name(value: Any, dtype: str) -> str | None:
    del dtype
    if isinstance(value, str) and NAME.fullmatch(value):
        return None
    return (
        f"must be a name of letters, digits, '_', '-' or '.' (no '/', not starting with "
        f"'.'), not {_shown(value)}"
    )


def _text(value: Any, dtype: str) -> str | None:
    del dtype
    return None if isinstance(value, str) else f"must be text, not {_shown(value)}"


def _choice(known: tuple[str, ...]) -> Rule:
    def rule(value: Any, dtype: str) -> str | None:
        del dtype
        if isinstance(value, str) and value in known:
            return None
        return f"must be one of {', '.join(known)}, not {_shown(value)}"

    return rule


def _value(slack: int = 0) -> Rule:
    """A value of the dtype; `slack` 1 for an exclusive upper bound (`high`)."""

    def rule(value: Any, dtype: str) -> str | None:
        if dtype == "int32":
            low, high = INT32[0], INT32[1] + slack
            if _is_int(value) and low <= value <= high:
                return None
            return f"must be an integer from {low} to {high} (dtype int32), not {_shown(value)}"
        if (
            (_is_int(value) or isinstance(value, float))
            and math.isfinite(value)
            and abs(value) <= FLOAT32_MAX
        ):
            return None
        return f"must be a finite float32 number, not {_shown(value)}"

    return rule


def _fraction(value: Any, dtype: str) -> str | None:
    del dtype
    if (_is_int(value) or isinstance(value, float)) and 0 <= value <= 1:
        return None
    return f"must be a number from 0 to 1, not {_shown(value)}"


CASE_FIELDS: dict[str, Rule] = {
    "name": _name,
    "distribution": _choice(tuple(PARAMETERS)),
    "n": _integer(1, MAX_N),
    "seed": _integer(0, MAX_SEED),
    "low": _value(),
    "high": _value(slack=1),
    "hot_fraction": _fraction,
    "grey_fraction": _fraction,
    "hot_value": _value(),
    "pixels": _integer(1, MAX_N),
    "value": _value(),
    "about": _text,
}
MANIFEST_FIELDS: dict[str, Rule] = {"lab": _name, "dtype": _choice(DTYPES), "about": _text}


def validate_manifest(doc: Any) -> dict[str, Any]:
    """The manifest, unchanged, if it follows every rule; else SchemaError on the first."""
    if not isinstance(doc, dict):
        raise SchemaError("manifest", None, f"must be a JSON object, not {type(doc).__name__}")
    _known_keys("manifest", doc, (*MANIFEST_FIELDS, "defaults", "cases"))
    for key in MANIFEST_REQUIRED:
        if key not in doc:
            raise SchemaError("manifest", key, "is required")
    for key, rule in MANIFEST_FIELDS.items():
        _check("manifest", key, doc, rule, "")
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise SchemaError("manifest", "defaults", f"must be an object, not {_shown(defaults)}")
    _known_keys("manifest: defaults", defaults, tuple(CASE_FIELDS))
    cases = doc["cases"]
    if not isinstance(cases, list) or not cases:
        raise SchemaError("manifest", "cases", f"must be a non-empty list, not {_shown(cases)}")
    seen: set[str] = set()
    for index, case in enumerate(cases, 1):
        name = _validate_case(index, case, defaults, doc["dtype"])
        if name in seen:
            raise SchemaError(f"case {name!r}", "name", "must be unique: it appears twice")
        seen.add(name)
    return doc


def _validate_case(index: int, case: Any, defaults: dict[str, Any], dtype: str) -> str:
    """Check one case (defaults filled in); its name."""
    where = f"case #{index}"
    if not isinstance(case, dict):
        raise SchemaError(where, None, f"must be an object, not {_shown(case)}")
    if _name(case.get("name"), dtype) is None:
        where = f"case {case['name']!r}"
    _known_keys(where, case, tuple(CASE_FIELDS))
    params = {**defaults, **case}
    for key in CASE_REQUIRED:
        if key not in case:
            raise SchemaError(where, key, "is required")
    _check(where, "distribution", params, CASE_FIELDS["distribution"], dtype)
    required, optional = PARAMETERS[params["distribution"]]
    for key in required:
        if key not in params:
            raise SchemaError(where, key, f"is required by distribution {params['distribution']}")
    for key in (*CASE_REQUIRED, *required, *optional):
        _check(where, key, params, CASE_FIELDS[key], dtype, from_defaults=key not in case)
    if "low" in required and not params["low"] < params["high"]:
        raise SchemaError(
            where,
            "low",
            f"must be below high ({_shown(params['low'])} >= {_shown(params['high'])})",
        )
    if params["distribution"] == "corrupted_image":
        _check_image(where, params, dtype)
    if params["distribution"] == "rgba_image":
        _check_rgba(where, params, dtype)
    return str(case["name"])


def _check_image(where: str, params: dict[str, Any], dtype: str) -> None:
    """corrupted_image: grey levels of 8 bits and room for the pixels among n values."""
    if dtype != "int32":
        raise SchemaError(where, "distribution", "corrupted_image needs dtype int32")
    if params["pixels"] > params["n"]:
        raise SchemaError(
            where, "pixels", f"must be at most n ({params['pixels']} > {params['n']})"
        )
    if params["low"] < 0 or params["high"] > 256:
        raise SchemaError(
            where,
            "low",
            "grey levels must lie in 0 <= low < high <= 256, not "
            f"[{params['low']}, {params['high']})",
        )


def _check_rgba(where: str, params: dict[str, Any], dtype: str) -> None:
    """rgba_image: a pixel is four bytes, and the greys' pixels leave room for as many ties."""
    if dtype != "int32":
        raise SchemaError(where, "distribution", "rgba_image needs dtype int32 (4 bytes a pixel)")
    if params.get("grey_fraction", 0) > 0.5:
        raise SchemaError(
            where,
            "grey_fraction",
            f"must be at most 0.5 (as many pixels again get two equal channels), "
            f"not {_shown(params['grey_fraction'])}",
        )


def _check(
    where: str, key: str, doc: dict[str, Any], rule: Rule, dtype: str, from_defaults: bool = False
) -> None:
    if key not in doc:
        return
    problem = rule(doc[key], dtype)
    if problem is not None:
        raise SchemaError(where, key, problem + (" (from defaults)" if from_defaults else ""))


def _known_keys(where: str, doc: dict[str, Any], known: tuple[str, ...]) -> None:
    for key in doc:
        if key not in known:
            raise SchemaError(where, str(key), f"is not a known field (known: {', '.join(known)})")


def check_distributions() -> None:
    """The schema knows exactly the distributions the generator has (a test calls this)."""
    if set(PARAMETERS) != set(DISTRIBUTIONS):
        raise AssertionError(f"schema {sorted(PARAMETERS)} != generator {sorted(DISTRIBUTIONS)}")
