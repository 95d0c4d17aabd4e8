"""Theorem 3 figures for experiment "tails": empirical P[estimate > a] with Clopper–Pearson intervals against the
threshold, per m, for iid and orthogonal rows, with the claimed bounds as lines; where the bound is too small to count,
the tilted estimate of P with its limits. One figure per dimension d."""
import numpy as np
from matplotlib import cm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from result_file import ResultFileError, column, distinct, in_order, require_fields, select

COUPLING_ORDER = ["iid", "orthogonal"]
LEGEND_INCHES = 1.1
FIELDS = ["coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "smreg", "a", "exceed_count", "trials", "p_hat",
          "p_lower", "p_upper", "bound", "chernoff_bound", "max_estimate", "status"]


def plot_tails(result):
    """Figures for experiment "tails": {"tails_d<d>.png": one per dimension}."""
    rows = result["rows"]
    require_fields(rows, FIELDS)
    if not rows:
        raise ResultFileError("no rows to plot")
    return {f"tails_d{d}.png": _dimension_figure(result, select(rows, d=d), d) for d in distinct(rows, "d")}


def _geometries(rows):
    """The distinct (x_norm, y_norm, cos_angle) of the rows, in order of ‖z‖."""
    points = {(r["x_norm"], r["y_norm"], r["cos_angle"]) for r in rows}
    return sorted(points, key=lambda p: (p[0] ** 2 + p[1] ** 2 + 2 * p[0] * p[1] * p[2], p))


def _dimension_figure(result, rows, d):
    """Rows of panels: couplings; columns: geometries."""
    couplings = in_order(distinct(rows, "coupling"), COUPLING_ORDER)
    geometries = _geometries(rows)
    ms = distinct(rows, "m")
    colors = {m: cm.viridis(i / max(1, len(ms) - 1) * 0.9) for i, m in enumerate(ms)}
    trials = max(column(rows, "trials"))
    # The panels share y: down to the smallest tilted limit where tilted rows reach below what a count can show.
    floor = 0.3 * min([0.1 / trials] + [r["tilted_lower"] for r in rows if r.get("method") == "tilted"])
    fig = Figure(figsize=(max(6.0 * len(geometries), 11.0), 4.6 * len(couplings) + LEGEND_INCHES + 0.4))
    axes = fig.subplots(len(couplings), len(geometries), squeeze=False, sharey=True)
    for i, coupling in enumerate(couplings):
        for j, (xn, yn, c) in enumerate(geometries):
            ax = axes[i][j]
            mine = select(rows, coupling=coupling, x_norm=xn, y_norm=yn, cos_angle=c)
            _panel(ax, mine, ms, colors, coupling, floor)
            z_norm = np.sqrt(max(0.0, xn ** 2 + yn ** 2 + 2 * xn * yn * c))
            ax.set_title(f"{coupling} rows · ‖x‖={xn:g}, ‖y‖={yn:g}, cos={c:g} (‖z‖={z_norm:.3g})", fontsize=10)
            if j == 0:
                ax.set_ylabel("P[estimate > a] (log scale)")
            if i == len(couplings) - 1:
                ax.set_xlabel("δ = a / SMREG(x, y) − 1 (log scale)")
    alpha = result["params"].get("alpha", "?")
    fig.suptitle(f"Theorem 3: tails of the regularized estimator SMREG^+_m, d = {d}\n"
                 f"{int(trials)} trials per point · Clopper–Pearson intervals, family α = {alpha} per check "
                 f"(Bonferroni) · violated: interval above the bound")
    handles = [Line2D([], [], color=colors[m], marker="o", label=f"m = {m}") for m in ms]
    handles += [
        Line2D([], [], color="black", lw=1.6, label="claimed bound (iid: exp(−mL); orthogonal: d/(d+2)·exp(−mL))"),
        Line2D([], [], color="black", lw=1.0, ls=":", label="exp(−m L_X(a)) on orthogonal panels"),
        Line2D([], [], color="black", marker="v", markerfacecolor="none", linestyle="none",
               label="no exceedance: upper end of the interval"),
        Line2D([], [], color="black", marker="s", markerfacecolor="none", linestyle="none",
               label="tilted estimate of P, Hoeffding limits"),
        Line2D([], [], color="none", label="above the largest estimate: P = 0, not drawn"),
        Line2D([], [], color="gray", ls="--", lw=0.8, label="largest possible estimate (m = 1)"),
    ]
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8.5, frameon=False)
    fig.tight_layout(rect=(0, LEGEND_INCHES / fig.get_figheight(), 1, 1))
    return fig


def _panel(ax, rows, ms, colors, coupling, floor):
    """Empirical tail and bounds of every m on one (coupling, geometry) panel."""
    for m in ms:
        series = sorted(select(rows, m=m), key=lambda r: r["a"])
        if not series:
            continue
        color = colors[m]
        delta = column(series, "a") / column(series, "smreg") - 1
        p_hat, lower, upper = column(series, "p_hat"), column(series, "p_lower"), column(series, "p_upper")
        bound, chernoff = column(series, "bound"), column(series, "chernoff_bound")
        positive = bound > 0
        ax.plot(delta[positive], bound[positive], color=color, lw=1.6)
        if coupling != "iid":
            ax.plot(delta[positive], chernoff[positive], color=color, lw=1.0, ls=":")
        # Tilted rows: the estimate of P itself and its Hoeffding limits (a file from before the methods has none).
        tilted = np.array([r.get("method") == "tilted" for r in series], dtype=bool)
        seen = (p_hat > 0) & ~tilted
        ax.errorbar(delta[seen], p_hat[seen], yerr=[p_hat[seen] - lower[seen], upper[seen] - p_hat[seen]], fmt="none",
                    ecolor=color, alpha=0.7, capsize=2)
        statuses = [r["status"] for r, keep in zip(series, seen) if keep]
        style.plot_by_status(ax, delta[seen], p_hat[seen], statuses, color, markersize=4.5)
        # None counted: the interval's upper end; above the coupling's largest estimate P = 0 and nothing is drawn.
        exact = np.array([r.get("method") == "support" for r in series], dtype=bool)
        unseen = ~seen & ~tilted & ~exact & positive
        ax.plot(delta[unseen], upper[unseen], linestyle="none", marker="v", markerfacecolor="none",
                markeredgecolor=color, markersize=5)
        if tilted.any():
            mine = [r for r, keep in zip(series, tilted) if keep]
            t_p = np.array([r["tilted_p"] for r in mine])
            t_lo, t_hi = np.array([r["tilted_lower"] for r in mine]), np.array([r["tilted_upper"] for r in mine])
            ax.errorbar(delta[tilted], t_p, yerr=[t_p - t_lo, t_hi - t_p], fmt="none", ecolor=color, alpha=0.7,
                        capsize=2)
            ax.plot(delta[tilted], t_p, linestyle="none", marker="s", markerfacecolor="none", markeredgecolor=color,
                    markersize=7)
            style.plot_by_status(ax, delta[tilted], t_p, [r["status"] for r in mine], color, markersize=3)
    top = max((r["max_estimate"] / r["smreg"] - 1 for r in rows), default=None)
    deltas = [r["a"] / r["smreg"] - 1 for r in rows]
    if top is not None and deltas and top <= max(deltas):
        ax.axvline(top, color="gray", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.5)
    ax.grid(True, which="major", alpha=0.3)
