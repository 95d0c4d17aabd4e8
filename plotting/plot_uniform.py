"""Theorem 4 figures for experiment "uniform": P[‖Â − A‖_∞ ≤ ε] against m with Clopper–Pearson intervals, one panel
per d and one line per L; and the needed m (bracket and point) against d, with d·log d for comparison."""
import numpy as np
from matplotlib import cm
from matplotlib.figure import Figure

from result_file import ResultFileError, column, distinct, require_fields, select

POINT_FIELDS = ["L", "d", "m", "trials", "successes", "p_hat", "p_lower", "p_upper", "error_median", "error_q90"]
NEEDED_FIELDS = ["L", "d", "m_needed", "m_needed_lower", "m_needed_upper", "d_log_d"]


def plot_uniform(result):
    """{"uniform.png": success probability against m per d, "uniform_needed_m.png": needed m against d}."""
    rows = result["rows"]
    points = [r for r in rows if r.get("kind") == "point"]
    needed = [r for r in rows if r.get("kind") == "needed_m"]
    if not points:
        raise ResultFileError('no rows of kind "point"')
    require_fields(points, POINT_FIELDS)
    require_fields(needed, NEEDED_FIELDS)
    return {"uniform.png": _probability_figure(result, points), "uniform_needed_m.png": _needed_figure(result, needed)}


def _colors(ls):
    return {L: cm.viridis(i / max(1, len(ls) - 1) * 0.85) for i, L in enumerate(ls)}


def _probability_figure(result, rows):
    ds, ls = distinct(rows, "d"), distinct(rows, "L")
    colors = _colors(ls)
    params = result["params"]
    target = params.get("probability", 0.9)
    fig = Figure(figsize=(4.2 * len(ds) + 0.5, 8.2))
    axes = fig.subplots(2, len(ds), squeeze=False)
    for j, d in enumerate(ds):
        top, bottom = axes[0][j], axes[1][j]
        for L in ls:
            mine = sorted(select(rows, d=d, L=L), key=lambda r: r["m"])
            m, p = column(mine, "m"), column(mine, "p_hat")
            lo, hi = column(mine, "p_lower"), column(mine, "p_upper")
            top.errorbar(m, p, yerr=[p - lo, hi - p], color=colors[L], marker="o", ms=4, capsize=2, lw=1.2,
                         label=f"L = {L}")
            bottom.plot(m, column(mine, "error_median"), color=colors[L], marker="o", ms=4, label=f"L = {L} median")
            bottom.plot(m, column(mine, "error_q90"), color=colors[L], ls="--", lw=1, label=f"L = {L} 90% quantile")
        top.axhline(target, color="black", lw=0.8, ls=":")
        bottom.axhline(params.get("epsilon", np.nan), color="red", lw=0.9, ls=":", label="ε")
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("m (random features)")
        bottom.set_yscale("log")
        top.set_ylim(-0.03, 1.03)
        top.set_title(f"d = {d}")
        if j == 0:
            top.set_ylabel(f"P[‖Â − A‖∞ ≤ ε]  (dotted: {target})")
            bottom.set_ylabel("‖Â − A‖∞ over draws")
            top.legend(fontsize=8, loc="lower right")
            bottom.legend(fontsize=7, loc="upper right")
    trials = int(max(column(rows, "trials")))
    fig.suptitle(f"Theorem 4: trig features, orthogonal W, unnormalized A = exp(QKᵀ/√d); ε = {params.get('epsilon')}, "
                 f"rows of norm R = {params.get('radius')}\n{trials} draws of W per point · bars: Clopper–Pearson, "
                 f"family α = {params.get('alpha')} (Bonferroni)")
    fig.tight_layout()
    return fig


def _needed_figure(result, rows):
    ls = distinct(rows, "L")
    colors = _colors(ls)
    fig = Figure(figsize=(7.5, 5.4))
    ax = fig.subplots()
    for k, L in enumerate(ls):
        mine = sorted(select(rows, L=L), key=lambda r: r["d"])
        d = column(mine, "d") * (1 + 0.04 * (k - (len(ls) - 1) / 2))  # side by side
        point, lower, upper = column(mine, "m_needed"), column(mine, "m_needed_lower"), column(mine, "m_needed_upper")
        top = np.where(np.isnan(upper), np.nanmax(np.r_[lower, point, 1]) * 2, upper)
        ax.vlines(d, lower, top, color=colors[L], lw=3, alpha=0.45)
        open_top = np.isnan(upper)
        ax.plot(d[open_top], top[open_top], "^", color=colors[L], ms=7)
        ax.plot(d, point, "o", color=colors[L], label=f"L = {L}")
    all_d = np.array(distinct(rows, "d"), dtype=float)
    ref = [r for r in rows if r.get("m_needed") is not None]
    if ref:
        r0 = min(ref, key=lambda r: (r["d"], r["L"]))
        scale = r0["m_needed"] / r0["d_log_d"]
        ax.plot(all_d, scale * all_d * np.log(all_d), "k--", lw=1, label="∝ d ln d (through the first point)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("d")
    ax.set_ylabel("needed m (bar: bracket on the grid; ▲ open above)")
    params = result["params"]
    ax.set_title(f"m needed for P[‖Â − A‖∞ ≤ {params.get('epsilon')}] ≥ {params.get('probability')}, "
                 f"R = {params.get('radius')}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
