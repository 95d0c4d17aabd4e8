"""Structured orthogonal features for experiment "structured": relative bias against d, MSE relative to R-ORF, and
the speed of applying W.

Bias and MSE panels summarize the geometries of one d: the mean of |relative bias| over the geometries with ±2 s.e.
(the s.e. of that mean), and dotted the level that pure noise would give (mean s.e. · √(2/π), the expected |N(0, s.e.²)|):
a coupling whose points sit well above its dotted line has a detectable bias. MSE ratios are geometric means over the
geometries of MSE(coupling)/MSE(R-ORF).
"""
import numpy as np
from matplotlib.figure import Figure

from result_file import ResultFileError, column, distinct, in_order, require_fields, select

POINT_FIELDS = ["kind", "estimator", "coupling", "d", "relative_bias", "relative_bias_stderr", "status",
                "mse_ratio_to_orthogonal", "mse_ratio_stderr"]
SPEED_FIELDS = ["kind", "method", "d", "batch", "seconds", "time_ratio_to_dense"]
COUPLINGS = ["iid", "orthogonal", "hadamard", "givens"]
COLORS = {"iid": "tab:blue", "orthogonal": "tab:orange", "hadamard": "tab:green", "givens": "tab:purple",
          "dense": "tab:gray"}


def plot_structured(result):
    """{"structured_bias.png", "structured_mse.png", "structured_speed.png" (when timed): figure}."""
    rows = result["rows"]
    points = [r for r in rows if r.get("kind") == "point"]
    speed = [r for r in rows if r.get("kind") == "speed"]
    if not points:
        raise ResultFileError("no point rows to plot")
    require_fields(points, POINT_FIELDS)
    require_fields(speed, SPEED_FIELDS)
    trials = result["params"].get("trials")
    figures = {"structured_bias.png": _bias_figure(points, trials), "structured_mse.png": _mse_figure(points, trials)}
    if speed:
        figures["structured_speed.png"] = _speed_figure(speed)
    return figures


def _bias_figure(rows, trials):
    estimators = distinct(rows, "estimator")
    fig = Figure(figsize=(5.2 * len(estimators), 4.6))
    axes = fig.subplots(1, len(estimators), squeeze=False)[0]
    for ax, e in zip(axes, estimators):
        for k, c in enumerate(in_order(distinct(rows, "coupling"), COUPLINGS)):
            dims, mean_abs, err, floor, detected = [], [], [], [], []
            for d in distinct(select(rows, estimator=e, coupling=c), "d"):
                sel = select(rows, estimator=e, coupling=c, d=d)
                rb, se = column(sel, "relative_bias"), column(sel, "relative_bias_stderr")
                ok = np.isfinite(rb) & np.isfinite(se)
                if not ok.any():
                    continue
                dims.append(d)
                mean_abs.append(np.mean(np.abs(rb[ok])))
                err.append(2 * np.sqrt(np.mean(se[ok] ** 2) / ok.sum()))
                floor.append(np.mean(se[ok]) * np.sqrt(2 / np.pi))
                detected.append(any(r["status"] == "violated" for r in sel))
            dims = np.asarray(dims, dtype=float) * (1 + 0.04 * (k - 1.5))  # small offsets keep error bars apart
            color = COLORS.get(c, "black")
            ax.errorbar(dims, mean_abs, yerr=err, color=color, marker="o", capsize=3, label=c)
            ax.plot(dims, floor, color=color, linestyle=":", linewidth=1)
            for x, y, bad in zip(dims, mean_abs, detected):
                if bad:
                    ax.plot([x], [y], marker="o", markersize=11, markerfacecolor="none", markeredgecolor="red")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("dimension d (m = d)")
        ax.set_ylabel("mean over geometries of |relative bias|")
        ax.set_title(f"{e} estimator", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Structured features: bias against d ({trials} trials per point; ±2 s.e.; dotted: noise level; "
                 "red ring: bias detected at some geometry)", fontsize=10)
    fig.tight_layout()
    return fig


def _mse_figure(rows, trials):
    estimators = distinct(rows, "estimator")
    fig = Figure(figsize=(5.2 * len(estimators), 4.6))
    axes = fig.subplots(1, len(estimators), squeeze=False)[0]
    for ax, e in zip(axes, estimators):
        for k, c in enumerate(in_order(distinct(rows, "coupling"), COUPLINGS)):
            if c == "orthogonal":
                continue
            dims, ratio, err = [], [], []
            for d in distinct(select(rows, estimator=e, coupling=c), "d"):
                sel = select(rows, estimator=e, coupling=c, d=d)
                r, se = column(sel, "mse_ratio_to_orthogonal"), column(sel, "mse_ratio_stderr")
                ok = np.isfinite(r) & np.isfinite(se) & (r > 0)
                if not ok.any():
                    continue
                dims.append(d)
                g = np.exp(np.mean(np.log(r[ok])))
                ratio.append(g)
                err.append(2 * g * np.sqrt(np.mean((se[ok] / r[ok]) ** 2) / ok.sum()))
            dims = np.asarray(dims, dtype=float) * (1 + 0.04 * (k - 1.5))
            ax.errorbar(dims, ratio, yerr=err, color=COLORS.get(c, "black"), marker="o", capsize=3, label=c)
        ax.axhline(1.0, color=COLORS["orthogonal"], linestyle="--", label="R-ORF (orthogonal)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("dimension d (m = d)")
        ax.set_ylabel("MSE / MSE(R-ORF), geometric mean")
        ax.set_title(f"{e} estimator", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Structured features: MSE relative to Haar-orthogonal features ({trials} trials per point, ±2 s.e.)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _speed_figure(rows):
    dims = distinct(rows, "d")
    methods = in_order(distinct(rows, "method"), ["dense", "hadamard", "givens"])
    fig = Figure(figsize=(6.4, 4.4))
    ax = fig.subplots()
    width = 0.8 / len(methods)
    x = np.arange(len(dims))
    for k, method in enumerate(methods):
        ratios = [select(rows, method=method, d=d)[0]["time_ratio_to_dense"] if select(rows, method=method, d=d)
                  else np.nan for d in dims]
        bars = ax.bar(x + (k - (len(methods) - 1) / 2) * width, ratios, width, color=COLORS.get(method, "black"),
                      label=method)
        for b, v in zip(bars, ratios):
            if np.isfinite(v):
                ax.annotate(f"{v:.2g}", (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(x, [f"d = {d}" for d in dims])
    ax.set_ylabel("time / time of dense GEMM (one thread)")
    batch = rows[0]["batch"]
    ax.set_title(f"Applying W (m = d) to {batch} vectors: median time relative to dense", fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
