"""Relative bias (mean − truth)/truth with ± 2 s.e. against cos_angle, one panel per coupling."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from result_file import column, distinct, select


def bias_figure(rows, couplings, estimators, setup):
    """Every grid point's relative bias; cos_angle values sit evenly spaced, estimators side by side at each."""
    cosines = distinct(rows, "cos_angle")
    fig = Figure(figsize=(max(6.4 * len(couplings), 12), 5.4))
    axes = fig.subplots(1, len(couplings), squeeze=False, sharey=True).ravel()
    offsets = np.linspace(-0.3, 0.3, len(estimators))
    for ax, coupling in zip(axes, couplings):
        for offset, estimator in zip(offsets, estimators):
            mine = select(rows, coupling=coupling, estimator=estimator)
            _bias_points(ax, mine, cosines, offset, style.series_color(estimator))
        ax.axhline(0, color="gray", lw=0.8)
        ax.set_xticks(range(len(cosines)), [f"{c:g}" for c in cosines], rotation=45)
        ax.set_title(f"{coupling} projections")
        ax.set_xlabel("cos of the angle between x and y (all norm pairs at each)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("relative bias (mean − truth) / truth")
    fig.suptitle(f"Lemma 1: relative bias with ± 2 s.e. ({setup})")
    handles = [Line2D([], [], color=style.series_color(e), marker="o", label=e) for e in estimators]
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _bias_points(ax, rows, cosines, offset, color):
    """Error bars and status-styled points of one estimator on one coupling."""
    if not rows:
        return
    truth = column(rows, "truth")
    x = np.array([cosines.index(r["cos_angle"]) for r in rows]) + offset
    bias = (column(rows, "mean") - truth) / truth
    ax.errorbar(x, bias, yerr=2 * column(rows, "stderr") / np.abs(truth), fmt="none", ecolor=color, alpha=0.5,
                lw=0.8)
    style.plot_by_status(ax, x, bias, [r.get("status") for r in rows], color, markersize=3.5)
