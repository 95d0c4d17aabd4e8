"""Lemma 1 figure for experiment "unbiased": z of each estimator's mean against the exact value, per grid point."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import families
import style
from result_file import ResultFileError, column, critical_z, distinct, in_order, require_fields, select
from unbiased_bias import bias_figure

COUPLING_ORDER = ["iid", "orthogonal"]
ESTIMATOR_ORDER = families.ORDER
DEFAULT_CRITICAL_Z = 4.0
FIELDS = ["estimator", "coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "truth", "mean", "stderr", "z"]


def plot_unbiased(result):
    """Figures for experiment "unbiased": {"unbiased.png": z per point, "unbiased_bias.png": relative bias}."""
    rows = result["rows"]
    require_fields(rows, FIELDS)
    if not rows:
        raise ResultFileError("no rows to plot")
    couplings = in_order(distinct(rows, "coupling"), COUPLING_ORDER)
    estimators = in_order(distinct(rows, "estimator"), ESTIMATOR_ORDER)
    setup = (f"d={', '.join(str(v) for v in distinct(rows, 'd'))}, m={', '.join(str(v) for v in distinct(rows, 'm'))}, "
             f"{result['params'].get('trials', '?')} trials per point")
    return {
        "unbiased.png": _z_figure(result, couplings, estimators, setup),
        "unbiased_bias.png": bias_figure(rows, couplings, estimators, setup),
    }


def _z_figure(result, couplings, estimators, setup):
    """One panel per coupling: z per grid point, points sorted by SM, with the ± critical |z| band."""
    fig = Figure(figsize=(max(6.4 * len(couplings), 12), 5.6))
    axes = fig.subplots(1, len(couplings), squeeze=False, sharey=True).ravel()
    for ax, coupling in zip(axes, couplings):
        rows = select(result["rows"], coupling=coupling)
        _z_panel(ax, rows, estimators)
        for z in _critical_values(result["checks"], coupling):
            ax.axhline(z, color="black", ls="--", lw=1)
            ax.axhline(-z, color="black", ls="--", lw=1)
        ax.set_title(f"{coupling} projections")
        ax.set_xlabel("grid point (x_norm, y_norm, cos), sorted by SM = exp(x·y)")
    axes[0].set_ylabel("z = (mean − truth) / s.e.")
    fig.suptitle(f"Lemma 1: unbiasedness of the estimators ({setup})\ntruth is SM, for smreg SMREG")
    handles = [Line2D([], [], color=style.series_color(e), marker="o", linestyle="none", label=e) for e in estimators]
    alpha = result["params"].get("alpha")
    band = "± critical |z|" + (f" (family α = {alpha:g}, Bonferroni)" if isinstance(alpha, (int, float)) else "")
    handles.append(Line2D([], [], color="black", ls="--", label=band))
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def _z_panel(ax, rows, estimators):
    """Scatter z for every estimator, slightly offset so estimators at one point do not hide each other."""
    points = sorted({(r["x_norm"], r["y_norm"], r["cos_angle"]) for r in rows}, key=lambda p: (p[0] * p[1] * p[2], p))
    index = {p: i for i, p in enumerate(points)}
    offsets = np.linspace(-0.2, 0.2, len(estimators))
    for offset, estimator in zip(offsets, estimators):
        mine = select(rows, estimator=estimator)
        x = np.array([index[(r["x_norm"], r["y_norm"], r["cos_angle"])] for r in mine]) + offset
        style.plot_by_status(ax, x, column(mine, "z"), [r.get("status") for r in mine], style.series_color(estimator),
                             markersize=4)
    ticks = np.linspace(0, len(points) - 1, min(len(points), 5)).round().astype(int)
    ax.set_xticks(ticks, [f"{i}\nSM={np.exp(np.prod(points[i])):.2g}" for i in ticks])
    ax.axhline(0, color="gray", lw=0.8)
    ax.grid(True, alpha=0.3)


def _critical_values(checks, coupling):
    """The distinct critical |z| of the checks on this coupling, or DEFAULT_CRITICAL_Z when they state none."""
    found = {critical_z(c) for c in checks if str(c.get("where", "")).startswith(coupling + " ")}
    found.discard(None)
    return sorted(found) or [DEFAULT_CRITICAL_Z]
