"""Figure for experiment "estimators": log MSE ratio against ‖x + y‖, relative to positive features with iid rows.

One panel per d. Lines: the exact MSE of each family × coupling (where a closed form exists), ordered by ‖x + y‖
(ticks instead of a line where the ratio is not a function of ‖x + y‖, as for trig);
markers: the Monte Carlo MSE, styled by the status of its closed-form check (small dots where there is none).
Colour: the family (families.json); line style: the coupling.
"""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import families
import style
from result_file import ResultFileError, distinct, require_fields, select

FIELDS = ["estimator", "coupling", "d", "z_norm", "mse", "mse_exact", "reference_mse"]
COUPLING_STYLES = {"iid": "-", "orthogonal": "--", "simplex": ":"}


def _function_of(x, y, tolerance=1e-6):
    """Whether y is a function of x on these points (equal x, equal y): then a line through them means something."""
    seen = {}
    for a, b in zip(np.round(x, 9), y):
        if a in seen and abs(seen[a] - b) > tolerance * max(1.0, abs(b)):
            return False
        seen[a] = b
    return True


def plot_estimators(result):
    """{"estimators.png": one panel per d}."""
    rows = result["rows"]
    if not rows:
        raise ResultFileError("no rows to plot")
    require_fields(rows, FIELDS)
    dims = distinct(rows, "d")
    fig = Figure(figsize=(6.2 * len(dims), 6.4))
    axes = np.atleast_1d(fig.subplots(1, len(dims), squeeze=False)[0])
    estimators = sorted(distinct(rows, "estimator"), key=families.order_key)
    couplings = sorted(distinct(rows, "coupling"), key=lambda c: list(COUPLING_STYLES).index(c)
                       if c in COUPLING_STYLES else 99)
    for ax, d in zip(axes, dims):
        for estimator in estimators:
            color = style.series_color(estimator)
            for coupling in couplings:
                mine = sorted(select(rows, d=d, estimator=estimator, coupling=coupling), key=lambda r: r["z_norm"])
                if not mine:
                    continue
                z = np.array([r["z_norm"] for r in mine], dtype=float)
                ref = np.array([r["reference_mse"] for r in mine], dtype=float)
                exact = [r["mse_exact"] for r in mine]
                keep = ref > 0
                if all(e is not None for e in exact):
                    ratio = np.log10(np.asarray(exact, dtype=float) / np.where(keep, ref, np.nan))
                    if _function_of(z[keep], ratio[keep]):
                        ax.plot(z[keep], ratio[keep], color=color, lw=1.1, ls=COUPLING_STYLES.get(coupling, "-."))
                    else:  # trig depends on ‖x − y‖ too: exact values as ticks, no line through them
                        ax.plot(z[keep], ratio[keep], color=color, marker="_", markersize=9, linestyle="none")
                mc = np.array([r["mse"] for r in mine], dtype=float) / np.where(keep, ref, np.nan)
                shown = keep & np.isfinite(mc) & (mc > 0)
                style.plot_by_status(ax, z[shown], np.log10(mc[shown]),
                                     [r.get("status") for r, k in zip(mine, shown) if k], color, markersize=3.5)
        ax.axhline(0, color="gray", lw=0.8, ls=":")
        ax.set_title(f"d = m = {d}")
        ax.set_xlabel("‖x + y‖")
        ax.set_ylabel("log10 MSE / MSE(positive, iid)")
        ax.grid(True, alpha=0.3)
    handles = [Line2D([], [], color=style.series_color(e), lw=2, label=e) for e in estimators]
    handles += [Line2D([], [], color="black", ls=COUPLING_STYLES.get(c, "-."), label=f"{c} (exact)") for c in couplings]
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", ncol=6, fontsize=8, frameon=False)
    fig.suptitle("Which estimator of SM(x, y)? Exact MSE (lines) and Monte Carlo (markers), "
                 "relative to positive features with iid rows")
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return {"estimators.png": fig}
