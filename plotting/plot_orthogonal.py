"""Theorem 2 for experiment "orthogonal": MSE against m, iid vs orthogonal features, with the exact values and the
claimed bound.

One figure per estimator; panels are dimensions d (columns) × a few geometries (rows, by ‖z‖). MSEs are divided by
K² (K = SM for positive, SMREG for smreg), so panels of different geometries share a scale.
"""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from result_file import ResultFileError, column, distinct, require_fields, select

FIELDS = ["estimator", "coupling", "d", "m", "x_norm", "y_norm", "cos_angle", "z_norm", "truth", "mse", "mse_stderr",
          "mse_iid_theory", "mse_orthogonal_theory", "bound_claimed", "status"]
MAX_GEOMETRIES = 4
COLORS = {"iid": "tab:blue", "orthogonal": "tab:orange", "simplex": "tab:green"}
SHIFTS = {"iid": 1 / 1.04, "orthogonal": 1.04, "simplex": 1.08}  # side by side at the same m
LEGEND_INCHES = 1.1


def plot_orthogonal(result):
    """{"orthogonal_<estimator>.png": figure} for every estimator in the rows."""
    rows = result["rows"]
    require_fields(rows, FIELDS)
    if not rows:
        raise ResultFileError("no rows to plot")
    trials = result["params"].get("trials")
    figures = {}
    for e in distinct(rows, "estimator"):
        figures[f"orthogonal_{e}.png"] = _figure(select(rows, estimator=e), e, trials)
    figures["orthogonal_gap.png"] = _gap_figure(rows, trials)
    return figures


def _geometries(rows):
    """Up to MAX_GEOMETRIES geometries (x_norm, y_norm, cos) spread over ‖z‖, smallest ‖z‖ > 0 first."""
    by_z = {}
    for r in rows:
        by_z.setdefault(r["z_norm"], (r["x_norm"], r["y_norm"], r["cos_angle"]))
    zs = sorted(z for z in by_z if z > 0) or sorted(by_z)
    if len(zs) > MAX_GEOMETRIES:
        zs = [zs[i] for i in np.linspace(0, len(zs) - 1, MAX_GEOMETRIES).round().astype(int)]
    return [(z, by_z[z]) for z in zs]


def _figure(rows, estimator, trials):
    dims = distinct(rows, "d")
    geometries = _geometries(rows)
    kernel = "SMREG" if estimator == "smreg" else "SM"
    height = 3.2 * len(geometries) + 0.6 + LEGEND_INCHES
    fig = Figure(figsize=(4.6 * len(dims), height))
    axes = fig.subplots(len(geometries), len(dims), squeeze=False)
    for i, (z, (xn, yn, c)) in enumerate(geometries):
        for j, d in enumerate(dims):
            ax = axes[i][j]
            _panel(ax, select(rows, d=d, x_norm=xn, y_norm=yn, cos_angle=c))
            ax.set_title(f"d = {d}, ‖z‖ = {z:.3g} (‖x‖={xn:g}, ‖y‖={yn:g}, cos={c:g})", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"MSE / {kernel}²")
            if i == len(geometries) - 1:
                ax.set_xlabel("number of random features m")
    setup = f"{trials} trials per point" if trials else ""
    fig.suptitle(f"Theorem 2, {estimator} estimator: MSE of iid vs orthogonal features ({setup})")
    handles = [Line2D([], [], color=COLORS["iid"], marker="o", label="iid: Monte Carlo ± 2 s.e. / exact (line)"),
               Line2D([], [], color=COLORS["orthogonal"], marker="o",
                      label="orthogonal: Monte Carlo ± 2 s.e. / exact (line)"),
               Line2D([], [], color="black", linestyle="--", label="claimed bound MSE(iid) − (1−1/m)·2/(d+2)·K²")]
    if select(rows, coupling="simplex"):
        handles.insert(2, Line2D([], [], color=COLORS["simplex"], marker="o",
                                 label="simplex: Monte Carlo ± 2 s.e. / exact (line)"))
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.25 / height), ncol=3, fontsize=9,
               frameon=False)
    fig.text(0.5, 0.05 / height, "Where the claimed bound is ≤ 0 it cannot be drawn on a log axis; the panel says so "
             "(no MSE can satisfy it there). Hollow markers: inconclusive (heavy tails); red ×: violated.",
             ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, LEGEND_INCHES / height, 1, 1))
    return fig


def _panel(ax, rows):
    """Both couplings' points and theory lines, and the claimed bound, against m (log-log)."""
    positive_values = []
    for coupling, theory_field in (("iid", "mse_iid_theory"), ("orthogonal", "mse_orthogonal_theory"),
                                   ("simplex", "mse_simplex_theory")):
        mine = sorted(select(rows, coupling=coupling), key=lambda r: r["m"])
        if not mine:
            continue
        k2 = column(mine, "truth") ** 2
        m = column(mine, "m")
        theory = column(mine, theory_field) / k2
        mse = column(mine, "mse") / k2
        err = 2 * column(mine, "mse_stderr") / k2
        color = COLORS[coupling]
        shift = SHIFTS[coupling]
        ax.plot(m, np.where(theory > 0, theory, np.nan), color=color, lw=1.3)
        shown = mse > 0
        ax.errorbar(m[shown] * shift, mse[shown], yerr=err[shown], fmt="none", ecolor=color, alpha=0.6, capsize=2)
        style.plot_by_status(ax, m[shown] * shift, mse[shown], [r["status"] for r, s in zip(mine, shown) if s], color)
        positive_values += list(theory[theory > 0]) + list(mse[shown])
    ort = sorted(select(rows, coupling="orthogonal"), key=lambda r: r["m"])
    if ort:
        bound = column(ort, "bound_claimed") / column(ort, "truth") ** 2
        m = column(ort, "m")
        ax.plot(m, np.where(bound > 0, bound, np.nan), color="black", linestyle="--", lw=1.2)
        positive_values += list(bound[bound > 0])
        negative = m[(bound <= 0) & (m > 1)]
        if negative.size:
            ax.text(0.03, 0.04, f"claimed bound ≤ 0 for m ≥ {negative.min():g}", transform=ax.transAxes, fontsize=8,
                    color="black", bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
    ax.set_xscale("log", base=2)
    if positive_values:
        ax.set_yscale("log")
        low, high = min(positive_values), max(positive_values)
        ax.set_ylim(low / 5, high * 5)
    else:
        ax.text(0.5, 0.5, "MSE = 0 (estimator exact)", transform=ax.transAxes, ha="center")
    ax.grid(True, which="major", alpha=0.3)


def _gap_figure(rows, trials):
    """The claim itself: MSE reduction (iid − orthogonal)/K² against ‖z‖ at m = d, next to the claimed reduction."""
    estimators = distinct(rows, "estimator")
    dims = distinct(rows, "d")
    height = 3.4 * len(estimators) + 0.6 + LEGEND_INCHES
    fig = Figure(figsize=(4.6 * len(dims), height))
    axes = fig.subplots(len(estimators), len(dims), squeeze=False)
    for i, e in enumerate(estimators):
        kernel = "SMREG" if e == "smreg" else "SM"
        for j, d in enumerate(dims):
            ax = axes[i][j]
            mine = select(rows, estimator=e, d=d)
            m = max(distinct(mine, "m"))
            _gap_panel(ax, select(mine, m=m), d, m)
            ax.set_title(f"{e}, d = {d}, m = {m}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"(MSE(iid) − MSE(ort)) / {kernel}²")
            if i == len(estimators) - 1:
                ax.set_xlabel("‖z‖ = ‖x + y‖")
    fig.suptitle(f"Theorem 2: MSE reduction by orthogonal features against the claimed one ({trials} trials per point)")
    handles = [Line2D([], [], color="tab:orange", label="exact reduction"),
               Line2D([], [], color="tab:orange", marker="o", linestyle="none", label="Monte Carlo ± 2 s.e."),
               Line2D([], [], color="black", linestyle="--", label="claimed: (1−1/m)·2/(d+2)"),
               Line2D([], [], color="tab:green", linestyle=":", label="corrected: (1−1/m)·2/(d+2)·(1 − Λ/K)²")]
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.25 / height), ncol=4, fontsize=9,
               frameon=False)
    fig.text(0.5, 0.05 / height, "The claim holds where the reduction lies above the dashed line. Marker status: "
             "the Monte Carlo test of the claim (one-sided); hollow = heavy tails, inconclusive.",
             ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, LEGEND_INCHES / height, 1, 1))
    return fig


def _gap_panel(ax, rows, d, m):
    iid = {(r["x_norm"], r["y_norm"], r["cos_angle"]): r for r in select(rows, coupling="iid")}
    ort = sorted(select(rows, coupling="orthogonal"), key=lambda r: r["z_norm"])
    pairs = [(iid[(r["x_norm"], r["y_norm"], r["cos_angle"])], r) for r in ort
             if (r["x_norm"], r["y_norm"], r["cos_angle"]) in iid]
    if not pairs:
        return
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    z = column(b, "z_norm")
    k2 = column(b, "truth") ** 2
    exact = (column(b, "mse_iid_theory") - column(b, "mse_orthogonal_theory")) / k2
    mc = (column(a, "mse") - column(b, "mse")) / k2
    err = 2 * np.hypot(column(a, "mse_stderr"), column(b, "mse_stderr")) / k2
    lam = np.exp(-(column(b, "x_norm") ** 2 + column(b, "y_norm") ** 2) / 2)
    claimed = (1 - 1 / m) * 2 / (d + 2)
    corrected = claimed * (1 - lam / column(b, "truth")) ** 2
    ax.plot(z, exact, color="tab:orange", lw=1.3)
    ax.errorbar(z, mc, yerr=err, fmt="none", ecolor="tab:orange", alpha=0.6, capsize=2)
    style.plot_by_status(ax, z, mc, [r.get("claim_mc_status") for r in b], "tab:orange")
    ax.axhline(claimed, color="black", linestyle="--", lw=1.2)
    ax.plot(z, corrected, color="tab:green", linestyle=":", lw=1.5)
    finite = np.isfinite(mc) & (err < 10 * max(claimed, np.nanmax(exact)))
    top = max(claimed, np.nanmax(exact), np.nanmax((mc + err)[finite]) if finite.any() else 0)
    ax.set_ylim(-0.15 * top, 1.3 * top)
    ax.axhline(0, color="gray", lw=0.8)
    ax.grid(True, alpha=0.3)
