"""Read favorlab result files (schema "favorlab.result/1") and pick values out of their rows."""
import json
import re

import numpy as np

SCHEMA = "favorlab.result/1"



class ResultFileError(Exception):
    """A result file that cannot be read, breaks the schema, or lacks what a figure needs."""


def load_result(path, experiment):
    """Load the result JSON at path, check it follows the schema and is for experiment; return the dict."""
    try:
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        raise ResultFileError(f"cannot read: {e}") from e
    if not isinstance(result, dict):
        raise ResultFileError("top level is not a JSON object")
    if result.get("schema") != SCHEMA:
        raise ResultFileError(f"schema is {result.get('schema')!r}, expected {SCHEMA!r}")
    if result.get("experiment") != experiment:
        raise ResultFileError(f"experiment is {result.get('experiment')!r}, expected {experiment!r}")
    for key, kind in (("params", dict), ("rows", list), ("checks", list)):
        if not isinstance(result.get(key), kind):
            raise ResultFileError(f'"{key}" is missing or not a JSON {kind.__name__}')
    for name in ("rows", "checks"):
        if not all(isinstance(item, dict) for item in result[name]):
            raise ResultFileError(f'"{name}" holds an entry that is not a JSON object')
    return result


def require_fields(rows, fields):
    """Raise ResultFileError unless every row has every one of fields."""
    for i, row in enumerate(rows):
        missing = [f for f in fields if f not in row]
        if missing:
            raise ResultFileError(f"row {i} ({row.get('estimator')}, {row.get('coupling')}) lacks {', '.join(missing)}")


def select(rows, **where):
    """The rows whose fields equal all the given values, in file order."""
    return [row for row in rows if all(row.get(k) == v for k, v in where.items())]


def distinct(rows, field):
    """The sorted distinct values of field over rows."""
    return sorted({row[field] for row in rows})


def in_order(values, preferred):
    """values ordered as they appear in preferred, the rest after them in sorted order."""
    values = set(values)
    return [v for v in preferred if v in values] + sorted(values - set(preferred))


def column(rows, field):
    """The values of field as a float array; JSON null (and a missing field) become NaN."""
    try:
        return np.array([row.get(field) for row in rows], dtype=float)
    except (TypeError, ValueError) as e:
        raise ResultFileError(f'field "{field}" holds a value that is not a number') from e


def critical_z(check):
    """The critical value of a check's statistic (its typed "critical" field), or None when it has none."""
    value = check.get("critical")
    return float(value) if isinstance(value, (int, float)) else None
