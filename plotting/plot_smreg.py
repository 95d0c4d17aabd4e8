"""Theorem 1 figures for experiment "smreg": SMREG/SM against |z| per d, and d(1 - inf SMREG/SM) against d per C."""
import numpy as np
from matplotlib import cm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from result_file import ResultFileError, column, distinct, require_fields, select

RATIO_FIELDS = ["d", "z_norm", "ratio_exact", "ratio_series", "mc_ratio", "mc_stderr", "status"]
BOUND_FIELDS = ["C", "d", "d_gap", "d_gap_limit", "claimed_constant"]
ZOOM_Z = 3.0        # the right panel of smreg_ratio.png: |z| up to here, where Monte Carlo can be conclusive
CLAIMED = 2.0


def plot_smreg(result):
    """Figures for experiment "smreg": {"smreg_ratio.png": ratio per d, "smreg_bound.png": the 1 - 2/d bound}."""
    ratio_rows = select(result["rows"], kind="ratio")
    bound_rows = select(result["rows"], kind="bound")
    if not ratio_rows and not bound_rows:
        raise ResultFileError("no ratio or bound rows to plot")
    figures = {}
    if ratio_rows:
        require_fields(ratio_rows, RATIO_FIELDS)
        figures["smreg_ratio.png"] = _ratio_figure(result, ratio_rows)
    if bound_rows:
        require_fields(bound_rows, BOUND_FIELDS)
        figures["smreg_bound.png"] = _bound_figure(result, bound_rows)
    return figures


def _colors(values):
    """One colour per value along a perceptually ordered map."""
    cmap = cm.get_cmap("viridis")
    return {v: cmap(0.9 * i / max(1, len(values) - 1)) for i, v in enumerate(values)}


def _ratio_figure(result, rows):
    """Left: the whole |z| range, log y. Right: |z| <= ZOOM_Z, linear y, with Monte Carlo error bars."""
    dims = distinct(rows, "d")
    colors = _colors(dims)
    fig = Figure(figsize=(13, 6.2))
    left, right = fig.subplots(1, 2)
    for d in dims:
        mine = sorted(select(rows, d=d), key=lambda r: r["z_norm"])
        z = column(mine, "z_norm")
        exact, series = column(mine, "ratio_exact"), column(mine, "ratio_series")
        mc, se = column(mine, "mc_ratio"), column(mine, "mc_stderr")
        statuses = [r.get("status") for r in mine]
        for ax, keep in ((left, np.ones(len(z), bool)), (right, z <= ZOOM_Z)):
            ax.plot(z[keep], exact[keep], color=colors[d], lw=1.4, label=f"d={d}")
            ax.plot(z[keep], series[keep], color=colors[d], marker="+", ls="none", markersize=9)
            ok = keep & np.isfinite(mc) & (mc > 0)
            if ax is right:  # on the log axis of the left panel ± 2 s.e. often reaches below 0: markers only
                ax.errorbar(z[ok], mc[ok], yerr=2 * se[ok], fmt="none", ecolor=colors[d], elinewidth=1, capsize=2)
            style.plot_by_status(ax, z[ok], mc[ok], [s for s, k in zip(statuses, ok) if k], colors[d], markersize=4)
    left.set_yscale("log")
    left.set_xlabel("|z| = |x + y|")
    left.set_ylabel("SMREG / SM")
    left.set_title("whole range (|z| up to the overflow of exp(|z|²/2)); Monte Carlo markers only")
    right.set_xlabel("|z| = |x + y|")
    right.set_title(f"|z| ≤ {ZOOM_Z:g}: Monte Carlo ± 2 s.e.")
    right.axhline(1, color="gray", lw=0.8)
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    mc_check = next((c for c in result["checks"] if "Monte Carlo" in str(c.get("claim", ""))), {})
    fig.suptitle("Theorem 1: SMREG/SM depends on |z| and d only (x = y = z/2); "
                 f"{result['params'].get('trials', '?')} trials, m={result['params'].get('m', '?')}\n"
                 f"Monte Carlo check: {mc_check.get('status', '?')}")
    handles = [Line2D([], [], color=colors[d], lw=1.4, label=f"d={d}") for d in dims]
    handles += [Line2D([], [], color="black", lw=1.4, label="Bessel closed form"),
                Line2D([], [], color="black", marker="+", ls="none", markersize=9, label="series (eq. 30)")]
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def _bound_figure(result, rows):
    """d(1 − inf ratio) against d (log-log), one line per C, its limit (2 ln C)² dashed, the claimed 2 in black."""
    bounds = distinct(rows, "C")
    colors = _colors(bounds)
    verdicts = {}
    for check in result["checks"]:
        where = str(check.get("where", ""))
        if where.startswith("C="):
            verdicts[where.split(" ")[0][2:]] = check.get("status", "?")
    fig = Figure(figsize=(9.5, 6.4))
    ax = fig.subplots()
    for c in bounds:
        mine = sorted(select(rows, C=c), key=lambda r: r["d"])
        d, gap = column(mine, "d"), column(mine, "d_gap")
        limit = mine[0]["d_gap_limit"]
        verdict = verdicts.get(f"{c:g}", "?")
        ax.plot(d, gap, color=colors[c], marker="o", markersize=4, lw=1.4,
                label=f"C={c:g}: limit (2 ln C)²={limit:.3g}, {verdict}")
        ax.axhline(limit, color=colors[c], ls=":", lw=1)
    ax.axhline(CLAIMED, color="black", lw=2, label="claimed constant 2 (inf ratio ≥ 1 − 2/d + o(1/d))")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("d")
    ax.set_ylabel("d · (1 − inf SMREG/SM)")
    ax.set_title("Theorem 1 lower bound under ‖A‖∞ ≤ C: inf over |z| ≤ 2√(ln C)\n"
                 "dotted: the exact limit (2 ln C)²; the claim holds only for C ≤ exp(1/√2) ≈ 2.03")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig
