"""The series of the "mse" experiment: equal-norm iid rows of one estimator at one m."""
from dataclasses import dataclass

import numpy as np

import families
import style
from result_file import distinct, in_order, select

ESTIMATOR_ORDER = families.ORDER

# MSEs below this multiple of SM² are exact zeros up to floating-point rounding; a log axis cannot show them.
ROUNDING_FLOOR = 1e-12


@dataclass
class Series:
    """Rows of one estimator at one number m of random features."""

    estimator: str
    m: int
    label: str
    color: str
    rows: list


def softmax_kernel(a, b, c):
    """SM(x, y) = exp(x·y) for norms a, b and cosine c."""
    return np.exp(a * b * c)


def equal_norm_series(rows):
    """The iid series with x_norm == y_norm: each estimator at its smallest m first, then at other m ("2m")."""
    equal = [r for r in select(rows, coupling="iid") if r["x_norm"] == r["y_norm"]]
    series = []
    for estimator in in_order(distinct(equal, "estimator"), ESTIMATOR_ORDER):
        mine = select(equal, estimator=estimator)
        ms = distinct(mine, "m")
        for k, m in enumerate(ms):
            label = estimator if k == 0 else f"{estimator} ({_multiple(m, ms[0])})"
            series.append(Series(estimator, m, label, style.series_color(estimator, k), select(mine, m=m)))
    return series


def base_m(series):
    """The smallest m over the series."""
    return min(s.m for s in series)


def above_floor(values, sm):
    """values with those at or below the rounding floor (relative to SM²) set to NaN."""
    values = np.asarray(values, dtype=float)
    return np.where(values > ROUNDING_FLOOR * np.asarray(sm) ** 2, values, np.nan)


def _multiple(m, base):
    """'2m' for m = 2·base, else 'm=<m>'."""
    return f"{m // base}m" if m % base == 0 else f"m={m}"
