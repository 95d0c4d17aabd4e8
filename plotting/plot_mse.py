"""Fig. 2 of the paper for experiment "mse": MSE against the angle φ, Monte Carlo points over Lemma 2 curves."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from mse_ratio import ratio_figure
from mse_series import above_floor, base_m, equal_norm_series, softmax_kernel
from result_file import ResultFileError, column, distinct, require_fields

MAX_PANELS = 4
LEGEND_INCHES = 1.2
FIELDS = ["estimator", "coupling", "m", "d", "x_norm", "y_norm", "cos_angle", "mse", "mse_stderr"]


def plot_mse(result):
    """Figures for experiment "mse": {"mse.png": the Fig. 2 panels, "mse_ratio.png": trig/positive ratio}.

    The ratio figure is left out when the rows lack trig or positive.
    """
    require_fields(result["rows"], FIELDS)
    series = equal_norm_series(result["rows"])
    if not series:
        raise ResultFileError("no iid rows with x_norm == y_norm to plot")
    setup = _setup_text(result, series)
    figures = {"mse.png": _angle_figure(series, setup)}
    estimators = {s.estimator for s in series}
    if {"trig", "positive"} <= estimators:
        figures["mse_ratio.png"] = ratio_figure(series, setup)
    return figures


def _setup_text(result, series):
    """'iid ω, d=…, m=…, … trials per point' from the rows and params."""
    rows = [r for s in series for r in s.rows]
    trials = result["params"].get("trials") or ", ".join(f"{t:g}" for t in distinct(rows, "trials"))
    d = ", ".join(str(v) for v in distinct(rows, "d"))
    return f"iid ω, d={d}, m={base_m(series)}, {trials} trials per point"


def _panel_norms(series):
    """Up to MAX_PANELS equal norms, evenly spread over those in the rows."""
    norms = distinct([r for s in series for r in s.rows], "x_norm")
    if len(norms) <= MAX_PANELS:
        return norms
    picks = np.linspace(0, len(norms) - 1, MAX_PANELS).round().astype(int)
    return [norms[i] for i in picks]


def _angle_figure(series, setup):
    """One log-scale panel per norm: MSE against φ = arccos(cos_angle)."""
    norms = _panel_norms(series)
    ncols = 2 if len(norms) == 4 else len(norms)
    nrows = -(-len(norms) // ncols)
    height = 4.0 * nrows + 0.5 + LEGEND_INCHES
    fig = Figure(figsize=(5.4 * ncols, height))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for i, (ax, norm) in enumerate(zip(axes, norms)):
        _angle_panel(ax, series, norm)
        ax.set_title(f"‖x‖ = ‖y‖ = {norm:g}")
        if i % ncols == 0:
            ax.set_ylabel("MSE (log scale)")
        if i >= len(norms) - ncols:
            ax.set_xlabel("angle φ between x and y (radians)")
    fig.suptitle(f"Lemma 2 / Fig. 2: MSE of softmax-kernel estimators against the angle ({setup})")
    handles = [Line2D([], [], color=s.color, marker="o", label=f"{s.label}, m={s.m}") for s in series]
    handles.append(Line2D([], [], color="black", label="closed form (at the grid's angles)"))
    handles.append(Line2D([], [], color="black", marker="|", markersize=10, linestyle="none",
                          label="Monte Carlo ± 2 s.e."))
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.3 / height), ncol=4, fontsize=9,
               frameon=False)
    fig.text(0.5, 0.08 / height, "MSE is exactly 0 at φ = 0 (trig) and at φ = π (positive, hyperbolic); "
             "a log axis cannot show it. Error bars reaching the bottom have a lower end ≤ 0.",
             ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, LEGEND_INCHES / height, 1, 1))
    return fig


def _angle_panel(ax, series, norm):
    """Curves and points of every series at x_norm = y_norm = norm."""
    low, high = np.inf, 0.0
    for s in series:
        rows = sorted((r for r in s.rows if r["x_norm"] == norm), key=lambda r: r["cos_angle"])
        if not rows:
            continue
        phi = np.arccos(np.clip(column(rows, "cos_angle"), -1, 1))
        sm = softmax_kernel(norm, norm, column(rows, "cos_angle"))
        theory_rows = [r.get("mse_theory") for r in rows]
        if all(t is not None for t in theory_rows):  # the closed form the experiment judged, at the grid's angles
            ax.plot(phi, above_floor(np.asarray(theory_rows, dtype=float), sm), color=s.color, lw=1.4)
        mse = above_floor(column(rows, "mse"), sm)
        err = 2 * column(rows, "mse_stderr")
        shown = np.isfinite(mse)
        ax.errorbar(phi[shown], mse[shown], yerr=err[shown], fmt="none", ecolor=s.color, alpha=0.6, capsize=2)
        statuses = [r.get("status") for r, keep in zip(rows, shown) if keep]
        style.plot_by_status(ax, phi[shown], mse[shown], statuses, s.color)
        if shown.any():
            low = min(low, np.min(mse[shown]))
            high = max(high, np.max(mse[shown] + err[shown]))
    ax.set_yscale("log")
    if high > 0:
        ax.set_ylim(low / 20, high * 3)
    ax.set_xlim(0, np.pi)
    ax.set_xticks(np.linspace(0, np.pi, 5), ["0", "π/4", "π/2", "3π/4", "π"])
    ax.grid(True, which="major", alpha=0.3)
