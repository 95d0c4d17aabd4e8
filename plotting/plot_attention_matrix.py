"""Heatmaps for experiment "attention-matrix": the exact attention matrix of one input next to its FAVOR
approximations (top row, one shared colour scale) and their differences from the exact matrix (bottom row, a shared
symmetric diverging scale; negative entries of a matrix show as the colour below 0 in the top row's scale)."""
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from result_file import ResultFileError, require_fields

FIELDS = ["features", "coupling", "matrix", "max_abs_error", "row_sum_deviation", "min_entry", "negative_entries"]


def plot_attention_matrix(result):
    """{"attention_matrix.png": heatmap grid}."""
    rows = result["rows"]
    require_fields(rows, FIELDS)
    exact = [r for r in rows if r["features"] == "exact"]
    approx = [r for r in rows if r["features"] != "exact"]
    if not exact:
        raise ResultFileError("no exact matrix to compare with")
    a = np.array(exact[0]["matrix"], dtype=float)
    mats = [np.array(r["matrix"], dtype=float) for r in approx]
    n = 1 + len(approx)
    fig = Figure(figsize=(2.9 * n + 1.6, 6.6))
    axes = fig.subplots(2, n, squeeze=False)
    # Colour scales from the exact and the non-trig matrices: trig's wild entries (|A_ij| ≫ 1) would otherwise wash
    # everything else out; they saturate instead (colour bars marked "extend").
    tame = [a] + [m for r, m in zip(approx, mats) if r["features"] != "trig"]
    top = max(m.max() for m in tame)
    norm = TwoSlopeNorm(vmin=-top, vcenter=0.0, vmax=top)
    tame_diffs = [np.abs(m - a).max() for r, m in zip(approx, mats) if r["features"] != "trig"]
    diff_max = max(tame_diffs or [np.abs(m - a).max() for m in mats] or [1e-300]) or 1e-300
    image = None
    for j, (title, m, r) in enumerate([("exact", a, exact[0])] + [(f"{r['features']} / {r['coupling']}", m, r)
                                                                  for r, m in zip(approx, mats)]):
        image = axes[0][j].imshow(m, cmap="RdBu_r", norm=norm, interpolation="nearest")
        axes[0][j].set_title(f"{title}\nmin {r['min_entry']:.2g}, {r['negative_entries']} < 0", fontsize=9)
        if j == 0:
            axes[1][j].axis("off")
            axes[1][j].text(0.05, 0.5, "differences from exact\n(approx − exact) below", fontsize=9,
                            transform=axes[1][j].transAxes)
            continue
        diff = axes[1][j].imshow(m - a, cmap="PuOr_r", vmin=-diff_max, vmax=diff_max, interpolation="nearest")
        axes[1][j].set_title(f"max |err| {r['max_abs_error']:.2g}\n|row sum − 1| ≤ {r['row_sum_deviation']:.1g}",
                             fontsize=9)
    for ax in axes.ravel():
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8, extend="both", label="attention weight (saturates)")
    if len(mats):
        fig.colorbar(diff, ax=list(axes[1]), shrink=0.8, extend="both", label="approx − exact (saturates)")
    p = result["params"]
    fig.suptitle(f"Attention matrices (L={p.get('L')}, d={p.get('d')}, m={p.get('m')}, "
                 f"{'causal' if p.get('causal') else 'bidirectional'}, Q/K entry sd {p.get('qk_scale')})", fontsize=10)
    return {"attention_matrix.png": fig}
