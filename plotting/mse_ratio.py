"""MSE(trig)/MSE(positive) against SM = exp(x·y) for equal norms: it grows without bound as SM → 0."""
import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from mse_series import above_floor, base_m, softmax_kernel
from result_file import column


def ratio_figure(series, setup):
    """Log-log figure of the ratio at the base m: Lemma 2 curves and Monte Carlo ratios, one colour per norm."""
    m = base_m(series)
    trig = _rows_by_point(series, "trig", m)
    positive = _rows_by_point(series, "positive", m)
    points = sorted(trig.keys() & positive.keys())
    norms = sorted({norm for norm, _ in points})
    colors = colormaps["viridis"](np.linspace(0, 0.85, len(norms)))
    fig = Figure(figsize=(8.2, 6.0))
    ax = fig.subplots()
    low, high = np.inf, 0.0
    for norm, color in zip(norms, colors):
        cos = [c for n, c in points if n == norm]
        pairs = [(trig[(norm, c)], positive[(norm, c)]) for c in cos]
        _theory_curve(ax, norm, pairs, color)
        sm, ratio, err, statuses = _empirical(norm, pairs)
        shown = np.isfinite(ratio)
        ax.errorbar(sm[shown], ratio[shown], yerr=err[shown], fmt="none", ecolor=color, alpha=0.6, capsize=2)
        style.plot_by_status(ax, sm[shown], ratio[shown], [s for s, k in zip(statuses, shown) if k], color)
        if shown.any():
            low = min(low, np.min(ratio[shown]))
            high = max(high, np.max(ratio[shown] + err[shown]))
    ax.axhline(1, color="gray", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if high > 0:
        ax.set_ylim(low / 20, high * 5)
    ax.set_xlabel("SM(x, y) = exp(x·y)  (log scale)")
    ax.set_ylabel("MSE(trig) / MSE(positive)  (log scale)")
    ax.set_title(f"Lemma 2: trig/positive MSE ratio grows as SM → 0\n(‖x‖ = ‖y‖, {setup})", fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    handles = [Line2D([], [], color=c, marker="o", label=f"‖x‖ = ‖y‖ = {n:g}") for n, c in zip(norms, colors)]
    handles.append(Line2D([], [], color="black", label="Lemma 2 closed forms"))
    handles.append(Line2D([], [], color="black", marker="|", markersize=10, linestyle="none",
                          label="Monte Carlo ± 2 s.e."))
    handles.append(Line2D([], [], color="gray", ls=":", label="equal MSE"))
    ax.add_artist(ax.legend(handles=handles, fontsize=8, loc="upper right"))
    ax.legend(handles=style.status_handles(), fontsize=8, loc="lower left", title="status (worse of trig, positive)",
              title_fontsize=8)
    fig.tight_layout()
    return fig


def _rows_by_point(series, estimator, m):
    """{(norm, cos_angle): row} of the series of estimator at m."""
    rows = next((s.rows for s in series if s.estimator == estimator and s.m == m), [])
    return {(r["x_norm"], r["cos_angle"]): r for r in rows}


def _theory_curve(ax, norm, pairs, color):
    """The closed-form ratio the experiment judged (its rows' mse_theory), at the grid's angles."""
    if any(t.get("mse_theory") is None or p.get("mse_theory") is None for t, p in pairs):
        return
    sm = softmax_kernel(norm, norm, column([t for t, _ in pairs], "cos_angle"))
    trig = above_floor(np.asarray([t["mse_theory"] for t, _ in pairs], dtype=float), sm)
    positive = above_floor(np.asarray([p["mse_theory"] for _, p in pairs], dtype=float), sm)
    order = np.argsort(sm)
    ax.plot(sm[order], (trig / positive)[order], color=color, lw=1.4)


def _empirical(norm, pairs):
    """SM, ratio, 2-s.e. error (delta method) and combined status for (trig row, positive row) pairs."""
    trig_rows = [t for t, _ in pairs]
    positive_rows = [p for _, p in pairs]
    sm = softmax_kernel(norm, norm, column(trig_rows, "cos_angle"))
    trig = above_floor(column(trig_rows, "mse"), sm)
    positive = above_floor(column(positive_rows, "mse"), sm)
    ratio = trig / positive
    relative = np.hypot(column(trig_rows, "mse_stderr") / trig, column(positive_rows, "mse_stderr") / positive)
    statuses = [_worse(t.get("status"), p.get("status")) for t, p in pairs]
    return sm, ratio, 2 * ratio * relative, statuses


def _worse(a, b):
    """The worse of two statuses: violated, then inconclusive, then holds."""
    for status in ("violated", "inconclusive"):
        if status in (a, b):
            return status
    return a if a == b else None
