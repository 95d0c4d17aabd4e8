"""Figures for experiment "redraw" (a Fig. 15 analogue): how the output error depends on the projection draw.

Left: histogram of the single-draw output MSE (log bins) per feature map, with the median, the 99 % quantile and the
unlucky threshold marked. Right: output MSE of the average of k redrawn outputs against k, with ±2 s.e., the pure
1/k scaling of the single-draw MSE (dotted) and the bias-variance law B + V/k (dashed), B dashed-dotted.
"""
import numpy as np
from matplotlib.figure import Figure

import style
from result_file import ResultFileError, require_fields

DRAW_FIELDS = ["features", "mse_per_draw", "mse_median", "mse_q99", "unlucky_threshold", "unlucky_fraction",
               "bias_sq", "variance"]
AVG_FIELDS = ["features", "k", "mse", "mse_stderr", "mse_theory", "mse_one_over_k"]


def plot_redraw(result):
    """{"redraw.png": histogram of the draw-to-draw MSE and MSE of k-averages against k}."""
    draws = [r for r in result["rows"] if r.get("kind") == "draws"]
    averages = [r for r in result["rows"] if r.get("kind") == "average"]
    if not draws:
        raise ResultFileError("no draw rows to plot")
    require_fields(draws, DRAW_FIELDS)
    require_fields(averages, AVG_FIELDS)
    fig = Figure(figsize=(12.5, 5.0))
    hist_ax, k_ax = fig.subplots(1, 2)
    values = [np.array([v for v in r["mse_per_draw"] if v is not None], dtype=float) for r in draws]
    positive = np.concatenate([v[v > 0] for v in values]) if values else np.array([])
    if positive.size == 0:
        raise ResultFileError("no finite positive MSE to plot")
    bins = np.geomspace(positive.min(), positive.max(), 50)
    for r, v in zip(draws, values):
        color = style.series_color(r["features"])
        hist_ax.hist(v[v > 0], bins=bins, color=color, alpha=0.45,
                     label=f"{r['features']}: unlucky {100 * r['unlucky_fraction']:.1f} %, "
                           f"worst/median {r['mse_worst'] / r['mse_median']:.2g}")
        hist_ax.axvline(r["mse_median"], color=color, linestyle="-", linewidth=1.2)
        hist_ax.axvline(r["mse_q99"], color=color, linestyle=":", linewidth=1.2)
        hist_ax.axvline(r["unlucky_threshold"], color=color, linestyle="--", linewidth=1.2)
    hist_ax.set_xscale("log")
    hist_ax.set_xlabel("output MSE of one projection draw")
    hist_ax.set_ylabel("draws")
    hist_ax.set_title("single draws (solid: median, dashed: unlucky threshold, dotted: 99 %)", fontsize=9)
    hist_ax.legend(fontsize=8)
    for r in draws:
        f = r["features"]
        color = style.series_color(f)
        sel = sorted([a for a in averages if a["features"] == f], key=lambda a: a["k"])
        k = np.array([a["k"] for a in sel], dtype=float)
        mse = np.array([a["mse"] for a in sel], dtype=float)
        se = np.array([a["mse_stderr"] for a in sel], dtype=float)
        k_ax.errorbar(k, mse, yerr=2 * se, color=color, marker="o", capsize=3, linestyle="none", label=f"{f}: k-average")
        grid = np.geomspace(k.min(), k.max(), 50)
        k_ax.plot(grid, r["bias_sq"] + r["variance"] / grid, color=color, linestyle="--", linewidth=1,
                  label=f"{f}: B + V/k")
        k_ax.plot(k, [a["mse_one_over_k"] for a in sel], color=color, linestyle=":", linewidth=1,
                  label=f"{f}: MSE$_1$/k")
        if r["bias_sq"] > 0:
            k_ax.axhline(r["bias_sq"], color=color, linestyle="-.", linewidth=0.8, label=f"{f}: bias$^2$ B")
    k_ax.set_xscale("log", base=2)
    k_ax.set_yscale("log")
    k_ax.set_xlabel("k (redrawn outputs averaged)")
    k_ax.set_ylabel("output MSE of the average (±2 s.e.)")
    k_ax.grid(True, which="both", alpha=0.3)
    k_ax.legend(fontsize=7)
    p = result["params"]
    fig.suptitle(f"Redrawing projections: {p.get('coupling')}, m={p.get('m')}, L={p.get('L')}, d={p.get('d')}, "
                 f"{p.get('draws')} single draws, {p.get('groups')} groups per k", fontsize=10)
    fig.tight_layout()
    return {"redraw.png": fig}
