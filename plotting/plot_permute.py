"""PermuteFormer for experiment "permute-properties": the similarity against the relative offset (period = order of
the permutation), the 2-D row-wrap example, and the time of PermuteFormer relative to plain FAVOR.
"""
import numpy as np
from matplotlib.figure import Figure

from result_file import ResultFileError, distinct, in_order, require_fields, select

OFFSET_FIELDS = ["kind", "features", "permutation", "order", "offset", "sim"]
GRID_FIELDS = ["kind", "features", "x", "y", "query_x", "query_y", "sim_2d", "sim_1d"]
OVERHEAD_FIELDS = ["kind", "mode", "L", "m", "time_ratio"]
M_COLORS = {64: "tab:blue", 128: "tab:orange", 256: "tab:green"}


def plot_permute(result):
    """{"permute_offsets.png", "permute_wrap.png", "permute_overhead.png" (when measured): figure}."""
    rows = result["rows"]
    offsets = [r for r in rows if r.get("kind") == "offset"]
    grid = [r for r in rows if r.get("kind") == "grid_sim"]
    overhead = [r for r in rows if r.get("kind") == "overhead"]
    if not offsets or not grid:
        raise ResultFileError("no offset or grid_sim rows to plot")
    require_fields(offsets, OFFSET_FIELDS)
    require_fields(grid, GRID_FIELDS)
    require_fields(overhead, OVERHEAD_FIELDS)
    figures = {"permute_offsets.png": _offsets_figure(offsets), "permute_wrap.png": _wrap_figure(grid, result)}
    if overhead:
        figures["permute_overhead.png"] = _overhead_figure(overhead, result)
    return figures


def _offsets_figure(rows):
    features = in_order(distinct(rows, "features"), ["positive", "relu"])
    fig = Figure(figsize=(5.6 * len(features), 4.4))
    axes = fig.subplots(1, len(features), squeeze=False)[0]
    for ax, f in zip(axes, features):
        for perm, color in (("order60", "tab:blue"), ("random", "tab:gray")):
            sel = sorted(select(rows, features=f, permutation=perm), key=lambda r: r["offset"])
            if not sel:
                continue
            order = sel[0]["order"]
            x = [r["offset"] for r in sel]
            y = [r["sim"] for r in sel]
            name = "pi of order 60" if perm == "order60" else f"random pi (order {order})"
            ax.plot(x, y, color=color, marker=".", markersize=3, linewidth=0.8, label=name)
            if perm == "order60":
                for k in range(1, int(max(x) // order) + 1):
                    ax.axvline(k * order, color=color, linestyle="--", linewidth=0.8)
        ax.set_xlabel("relative offset j - i (bidirectional, r = 1)")
        ax.set_ylabel("sim(i, j) for one query/key content pair")
        ax.set_title(f"{f} features: dashed lines at multiples of the order", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("PermuteFormer: the similarity repeats with period order(pi) and is distinct within a period",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _wrap_figure(rows, result):
    feature = "positive" if select(rows, features="positive") else rows[0]["features"]
    sel = select(rows, features=feature)
    width = max(r["x"] for r in sel) + 1
    height = max(r["y"] for r in sel) + 1
    qx, qy = sel[0]["query_x"], sel[0]["query_y"]
    fig = Figure(figsize=(11, 4.8))
    axes = fig.subplots(1, 2)
    for ax, field, title in ((axes[0], "sim_2d", "2-D encoding (pi_x on one half, pi_y on the other)"),
                             (axes[1], "sim_1d", "flattened 1-D encoding (token i = y W + x)")):
        image = np.full((height, width), np.nan)
        for r in sel:
            image[r["y"], r["x"]] = r[field]
        shown = ax.imshow(image, origin="upper", cmap="viridis", interpolation="nearest")
        fig.colorbar(shown, ax=ax, fraction=0.046, pad=0.04, label="sim(query, key at (x, y))")
        ax.plot([qx], [qy], marker="*", color="red", markersize=12, label="query")
        ax.plot([qx + 1], [qy], marker="s", markerfacecolor="none", markeredgecolor="white", markersize=9,
                label="unit step")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("key x")
        ax.set_ylabel("key y")
        ax.legend(fontsize=7, loc="lower right")
    wraps = [r for r in result["rows"] if r.get("kind") == "wrap" and r.get("features") == feature]
    note = ""
    if wraps:
        w = wraps[0]
        note = (f"; row wrap (W-1,y)->(0,y+1) vs unit step: relative gap {w['relative_gap_2d']:.2g} in 2-D, "
                f"{w['relative_gap_1d']:.2g} flattened")
    fig.suptitle(f"{feature} features, {width}x{height} grid, bidirectional{note}", fontsize=9)
    fig.tight_layout()
    return fig


def _overhead_figure(rows, result):
    modes = in_order(distinct(rows, "mode"), ["bidirectional", "causal"])
    fig = Figure(figsize=(5.6 * len(modes), 4.4))
    axes = fig.subplots(1, len(modes), squeeze=False)[0]
    target = result["params"].get("overhead_target", 1.1)
    for ax, mode in zip(axes, modes):
        for m in distinct(select(rows, mode=mode), "m"):
            sel = sorted(select(rows, mode=mode, m=m), key=lambda r: r["L"])
            ax.plot([r["L"] for r in sel], [r["time_ratio"] for r in sel], marker="o",
                    color=M_COLORS.get(m, "black"), label=f"m = {m}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(target, color="red", linestyle="--", linewidth=0.8, label=f"target {target}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("sequence length L")
        ax.set_ylabel("time(PermuteFormer) / time(FAVOR)")
        ax.set_title(f"{mode}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    d = rows[0].get("d")
    reps = rows[0].get("repeats")
    fig.suptitle(f"PermuteFormer overhead over FAVOR (positive features, float32, d = {d}, one thread, median of "
                 f"{reps} interleaved runs)", fontsize=10)
    fig.tight_layout()
    return fig
