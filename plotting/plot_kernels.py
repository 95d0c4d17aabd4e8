"""Figures for experiment "kernels" (Fig. 16 without training): output deviation from exact softmax attention per
kernel, and the fraction of non-positive denominators D̂, one bar per input scale; NaN/Inf counts written on the bars."""
import numpy as np
from matplotlib import cm
from matplotlib.figure import Figure

from result_file import ResultFileError, column, distinct, require_fields, select

FIELDS = ["kernel", "estimator", "project", "scale", "mse", "nonpositive_fraction", "nonfinite_outputs",
          "nonfinite_denominators", "min_denominator"]


def plot_kernels(result):
    """{"kernels.png": deviation from softmax and non-positive denominators per kernel}."""
    rows = result["rows"]
    require_fields(rows, FIELDS)
    if not rows:
        raise ResultFileError("no rows to plot")
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    scales = distinct(rows, "scale")
    colors = {s: cm.plasma(0.15 + 0.7 * i / max(1, len(scales) - 1)) for i, s in enumerate(scales)}
    width = 0.8 / len(scales)
    x = np.arange(len(kernels))
    fig = Figure(figsize=(max(10.0, 0.62 * len(kernels) + 3), 9.0))
    top, bottom = fig.subplots(2, 1, sharex=True)
    for i, s in enumerate(scales):
        mine = [select(rows, kernel=k, scale=s) for k in kernels]
        mse = np.array([m[0]["mse"] if m and m[0]["mse"] is not None else np.nan for m in mine], dtype=float)
        frac = np.array([m[0]["nonpositive_fraction"] if m else np.nan for m in mine], dtype=float)
        bad = [(m[0]["nonfinite_outputs"] + m[0]["nonfinite_denominators"]) if m else 0 for m in mine]
        pos = x + (i - (len(scales) - 1) / 2) * width
        top.bar(pos, np.where(np.isnan(mse), 0, mse), width, color=colors[s], label=f"s = {s:g}")
        bottom.bar(pos, frac, width, color=colors[s], label=f"s = {s:g}")
        for p, v, b in zip(pos, mse, bad):
            if b:
                top.text(p, v if np.isfinite(v) else 1, f"{b} NaN/Inf", rotation=90, fontsize=7, color="red",
                         ha="center", va="bottom")
    top.set_yscale("log")
    top.set_ylabel("output MSE vs exact softmax attention\n(mean over draws with finite output)")
    bottom.set_ylabel("fraction of denominators D̂ ≤ 0")
    bottom.set_xticks(x)
    bottom.set_xticklabels(kernels, rotation=35, ha="right")
    top.legend(fontsize=8, title="entries N(0, s²)")
    for ax in (top, bottom):
        ax.grid(axis="y", alpha=0.3)
    params = result["params"]
    fig.suptitle(f"Kernels of Fig. 16 without training: L = {params.get('L')}, d = {params.get('d')}, "
                 f"m = {params.get('m')}, orthogonal W, {params.get('trials')} draws")
    fig.tight_layout()
    return {"kernels.png": fig}
