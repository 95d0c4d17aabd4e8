"""Figures for experiment "attention-report": how closely FAVOR matches the attention of every head of every layer.

attention_report_error.png: two log-log panels per layer against m. Left, the relative output error ‖Ô − O‖² /
‖O − Ō‖², median over the layer's heads (line) with their 10–90% quantiles (band) per family (colour) and coupling
(marker), bidirectional solid, causal dashed; uniform attention as a grey band (min–max over heads, line at the median);
a dotted slope −1; in the title, exact attention's error on bfloat16-rounded inputs (median over heads).
Right (bidirectional), the matrix error ‖Â − A‖_F / ‖A − U‖_F, median over heads, and dash-dotted the
Eckart–Young floor of the best matrix of rank r = feature columns; uniform attention is 1 (grey).
attention_report_heatmap.png: heads × layers map of the relative output error at one (features, coupling, m),
bidirectional, log colour scale; grey hatched: no value; red border: FAVOR did not beat uniform attention (violated).
attention_report_diagnostics.png: those errors against the head's median query norm ‖q‖·d^(−1/4) and against Lemma 2's
relative MSE of the positive kernel estimate, one colour per family.
attention_report_target.png (results with a recommendation, i.e. --target): heads × layers map of the relative output
error at the largest m for the recommended (or closest) family/coupling, the target as a red contour (cells at or below
it outlined when the grid is one row or column thin), the model's name and the recommendation's paragraph as title.
"""
import textwrap

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter

import families
import style
from result_file import ResultFileError, column, distinct, in_order, require_fields, select

FIELDS = ["layer", "head", "features", "coupling", "mode", "m", "rel_error_median", "mse_mean"]
MODES = {"bidirectional": "-", "causal": "--"}
COUPLING_ORDER = ["orthogonal", "iid"]
MARKERS = ["o", "s", "^", "D", "v", "P"]
LAYERS_PER_ROW = 3  # layers side by side in the error figure (two panels each)
ANNOTATE_MAX_CELLS = 200
OUTPUT_ERROR = "‖Ô − O‖² / ‖O − Ō‖²"


def plot_attention_report(result):
    """{"attention_report_error.png": errors against m per layer, "attention_report_heatmap.png": heads × layers
    map, "attention_report_diagnostics.png": error against head diagnostics}."""
    rows = result["rows"]
    if not rows:
        raise ResultFileError("no rows to plot")
    require_fields(rows, FIELDS)
    pick = _heatmap_choice(result["params"], rows)
    figures = {"attention_report_error.png": _error_figure(result, rows),
               "attention_report_heatmap.png": _heatmap_figure(result, rows, pick),
               "attention_report_diagnostics.png": _diagnostics_figure(result, rows, pick)}
    if result["params"].get("recommendation"):
        figures["attention_report_target.png"] = _target_figure(result, rows)
    return figures


def _positive(values):
    """values as floats, with nulls, non-finite and non-positive entries (a log axis cannot show them) as NaN."""
    v = np.array([np.nan if x is None else x for x in values], dtype=float)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def _over_heads(rows, field, ms, qs=(0.5, 0.1, 0.9)):
    """Array (len(ms), len(qs)): at each m the quantiles qs of field's positive values over the rows (one per head),
    NaN where there are none."""
    out = np.full((len(ms), len(qs)), np.nan)
    for i, m in enumerate(ms):
        v = _positive([r.get(field) for r in select(rows, m=m)])
        if not np.isnan(v).all():
            out[i] = np.nanquantile(v, qs)
    return out


def _layers(result, rows):
    """The layer names in layer order: by layer_index, else as params["layers"] lists them, else as first seen."""
    listed = list(result["params"].get("layers") or [])
    keys = {}
    for i, r in enumerate(rows):
        index = r.get("layer_index")
        keys.setdefault(r["layer"], (index if isinstance(index, int) else np.inf,
                                     listed.index(r["layer"]) if r["layer"] in listed else np.inf, i))
    return sorted(keys, key=keys.get)


def _pairs(rows):
    """The (features, coupling) series present in rows, families in table order."""
    present = {(r["features"], r["coupling"]) for r in rows}
    return [(f, c) for f in sorted(distinct(rows, "features"), key=families.order_key)
            for c in in_order(distinct(rows, "coupling"), COUPLING_ORDER) if (f, c) in present]


def _setting(result, rows):
    """One line naming L, d, draws (each as "v" or "lowest–highest" over the rows) and the kind of input."""
    said = {}
    for field in ("L", "d", "draws"):
        v = sorted({r.get(field) for r in rows} - {None}) or ["?"]
        said[field] = str(v[0]) if len(v) == 1 else f"{v[0]}–{v[-1]}"
    return (f"L = {said['L']}, d = {said['d']}, {said['draws']} draws of the projections per point, "
            f"{result['params'].get('input_kind', '?')} inputs")


def _note(ax, text="not defined on this layer"):
    """Write text in the middle of an empty panel."""
    ax.text(0.5, 0.5, text, ha="center", va="center", color="0.4", fontsize=9, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _annotate_cells(ax, grid, norm):
    """Each cell's value written in it (small grids only), dark on light cells and light on dark ones."""
    if grid.size > ANNOTATE_MAX_CELLS:
        return
    for i, j in np.argwhere(~np.isnan(grid)):
        ax.text(j, i, f"{grid[i, j]:.2g}", ha="center", va="center", fontsize=7,
                color="black" if norm(grid[i, j]) > 0.55 else "white")


def _layer_head_axes(ax, layers, n_heads):
    """A layer x head grid's axes: one tick per layer (x) and head (y), head 0 at the top."""
    ax.set_xlim(-0.5, len(layers) - 0.5)
    ax.set_ylim(n_heads - 0.5, -0.5)
    ax.set_xticks(range(len(layers)), labels=layers, rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(n_heads), labels=[str(h) for h in range(n_heads)], fontsize=8)
    ax.set_xlabel("layer")
    ax.set_ylabel("head")


def _log_axes(ax):
    """Log-log axes against m, with a grid."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("m (random features)", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="both", alpha=0.25)


def _heatmap_choice(params, rows):
    """(features, coupling, m) of the heat map and the diagnostics: params' heatmap_* where given, else positive (or
    the first family), orthogonal (or the first coupling) and the largest m."""
    features = sorted(distinct(rows, "features"), key=families.order_key)
    couplings = in_order(distinct(rows, "coupling"), COUPLING_ORDER)
    return (params.get("heatmap_features") or ("positive" if "positive" in features else features[0]),
            params.get("heatmap_coupling") or couplings[0], params.get("heatmap_m") or max(distinct(rows, "m")))


def _error_figure(result, rows):
    """Output error (left) and matrix error (right) against m for each layer, layers in reading order."""
    layers = _layers(result, rows)
    per_row = min(LAYERS_PER_ROW, len(layers))
    n_rows = -(-len(layers) // per_row)
    couplings = in_order(distinct(rows, "coupling"), COUPLING_ORDER)
    markers = {c: MARKERS[i % len(MARKERS)] for i, c in enumerate(couplings)}
    handles = [Line2D([], [], color=style.series_color(f), lw=2, label=f)
               for f in sorted(distinct(rows, "features"), key=families.order_key)]
    handles += [Line2D([], [], color="black", marker=markers[c], ls="none", label=c) for c in couplings]
    handles += [Line2D([], [], color="black", ls=ls, label=mode) for mode, ls in MODES.items()]
    handles += [Patch(color="black", alpha=0.12, label="10–90% over heads"),
                Patch(color="grey", alpha=0.3, label="uniform attention: min–max over heads, median"),
                Line2D([], [], color="black", ls=":", label="slope −1"),
                Line2D([], [], color="black", ls="-.", alpha=0.6, label="rank-(columns) floor, Eckart–Young")]
    width = max(9.0, 6.8 * per_row)
    ncol = min(len(handles), int(width / 3.0))
    legend_height = 0.3 + 0.22 * -(-len(handles) // ncol)
    height = 3.5 * n_rows + 1.0 + legend_height
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(n_rows, 2 * per_row, squeeze=False)
    for k, layer in enumerate(layers):
        mine = select(rows, layer=layer)
        left, right = axes[k // per_row][2 * (k % per_row):2 * (k % per_row) + 2]
        _output_panel(left, mine, markers)
        # Exact attention on bfloat16-rounded inputs, as a number in the title: orders of magnitude below FAVOR, a line
        # would flatten the curves (files written before this baseline have no such field).
        bf16 = _positive(list({r["head"]: r.get("exact_bf16_rel_error")
                               for r in select(mine, mode="bidirectional")}.values()))
        _matrix_panel(right, mine, markers)
        left.set_title(f"{layer} ({len(distinct(mine, 'head'))} heads): output error" +
                       ("" if np.isnan(bf16).all() else f"\nexact on bfloat16 inputs: {np.nanmedian(bf16):.2g}"),
                       fontsize=9)
        right.set_title(f"{layer}: matrix error, bidirectional", fontsize=9)
        if k % per_row == 0:
            left.set_ylabel(OUTPUT_ERROR, fontsize=8)
            right.set_ylabel("‖Â − A‖_F / ‖A − U‖_F", fontsize=8)
    for ax in axes.ravel()[2 * len(layers):]:
        ax.axis("off")
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    fig.suptitle(f"FAVOR vs exact attention per layer: median over heads of the error's median over draws\n"
                 f"{_setting(result, rows)}", fontsize=10)
    fig.tight_layout(rect=(0, legend_height / height, 1, 1 - 0.1 / height))
    return fig


def _output_panel(ax, rows, markers):
    """Relative output error against m: per series and mode the median over heads with its 10–90% band, the
    uniform baseline (bidirectional) and a slope −1 line through the first series' first point."""
    anchor, pairs = None, _pairs(rows)
    band_alpha = max(0.04, 0.25 / np.sqrt(len(pairs) * len(MODES)))  # many overlapping bands would be a grey wash
    for f, c in pairs:
        for mode, ls in MODES.items():
            mine = select(rows, features=f, coupling=c, mode=mode)
            ms = distinct(mine, "m")
            stats = _over_heads(mine, "rel_error_median", ms)
            if not ms or np.isnan(stats[:, 0]).all():
                continue
            color = style.series_color(f)
            ax.plot(ms, stats[:, 0], color=color, ls=ls, marker=markers[c], ms=3.5, lw=1.3)
            ax.fill_between(ms, stats[:, 1], stats[:, 2], color=color, alpha=band_alpha, lw=0)
            if anchor is None:
                first = np.flatnonzero(~np.isnan(stats[:, 0]))[0]
                anchor = (ms[first], stats[first, 0])
    if anchor is None:
        _note(ax)
        return
    u = _positive(list({r["head"]: r.get("uniform_rel_error") for r in select(rows, mode="bidirectional")}.values()))
    if not np.isnan(u).all():  # one value per head
        ax.axhspan(np.nanmin(u), np.nanmax(u), color="grey", alpha=0.3, lw=0)
        ax.axhline(np.nanmedian(u), color="grey", lw=1.2)
    m0, y0 = anchor
    x = np.array([m for m in distinct(rows, "m") if m >= m0], dtype=float)
    ax.plot(x, y0 * m0 / x, color="black", ls=":", lw=1)
    _log_axes(ax)


def _matrix_panel(ax, rows, markers):
    """Matrix error against m (bidirectional): median over heads per series, the rank floor of each family
    dash-dotted, and uniform attention at 1."""
    bidirectional = select(rows, mode="bidirectional")
    floors_drawn, drawn = set(), False
    for f, c in _pairs(bidirectional):
        mine = select(bidirectional, features=f, coupling=c)
        ms = distinct(mine, "m")
        error = _over_heads(mine, "matrix_rel_error_median", ms, (0.5,))[:, 0]
        if np.isnan(error).all():
            continue
        drawn, color = True, style.series_color(f)
        ax.plot(ms, error, color=color, marker=markers[c], ms=3.5, lw=1.3)
        if f not in floors_drawn:  # the floor depends on the columns, not on the coupling
            floors_drawn.add(f)
            floor = _over_heads(mine, "rank_floor_rel", ms, (0.5,))[:, 0]
            ax.plot(ms, floor, color=color, ls="-.", marker=".", ms=4, lw=1.1, alpha=0.6)
    if not drawn:
        _note(ax)
        return
    ax.axhline(1.0, color="grey", lw=1.2)
    _log_axes(ax)


def _heatmap_figure(result, rows, pick):
    """Heads × layers map of the relative output error at the chosen features, coupling and m, bidirectional."""
    features, coupling, m = pick
    layers = _layers(result, rows)
    n_heads = max(r["head"] for r in rows) + 1
    grid = np.full((n_heads, len(layers)), np.nan)
    violated = []
    for r in select(rows, features=features, coupling=coupling, mode="bidirectional", m=m):
        i, j = r["head"], layers.index(r["layer"])
        grid[i, j] = _positive([r["rel_error_median"]])[0]
        if r.get("beats_uniform_status") == "violated":
            violated.append((i, j))
    fig = Figure(figsize=(max(7.5, 0.62 * len(layers) + 3.2), max(4.2, 0.42 * n_heads + 2.6)))
    ax = fig.subplots()
    ax.set_facecolor("0.88")
    values = grid[~np.isnan(grid)]
    if values.size:
        lo, hi = values.min(), values.max()
        norm = LogNorm(lo / 1.5, hi * 1.5) if lo == hi else LogNorm(lo, hi)
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", norm=norm, aspect="auto", interpolation="nearest")
        bar = fig.colorbar(image, ax=ax, label=f"relative output error {OUTPUT_ERROR}\n(median over draws)")
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.2g}"))
        if hi / lo < 30:  # within about a decade the powers of ten alone leave the bar unlabelled
            bar.ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:.2g}"))
        _annotate_cells(ax, grid, norm)
    else:
        _note(ax, f"no values for {features} / {coupling} at m = {m}")
    for i, j in np.argwhere(np.isnan(grid)):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none", edgecolor="0.6", hatch="///", lw=0))
    for i, j in violated:
        ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, edgecolor="red", lw=2.2))
    _layer_head_axes(ax, layers, n_heads)
    ax.set_title(f"FAVOR {features} / {coupling}, m = {m}, bidirectional\ngrey hatched: no value · red border: not "
                 f"better than uniform attention (violated)\n{_setting(result, rows)}", fontsize=9)
    fig.tight_layout()
    return fig


def _diagnostics_figure(result, rows, pick):
    """Relative output error per head against its median query norm and against Lemma 2's relative MSE."""
    _, coupling, m = pick
    chosen = select(rows, coupling=coupling, mode="bidirectional", m=m)
    fig = Figure(figsize=(12.0, 5.0))
    panels = [("q_norm_q50", "median query norm ‖q‖·d^(−1/4) of the head", False),
              ("lemma2_rel_mse", "Lemma 2: relative MSE of the positive kernel estimate (median pair)", True)]
    for ax, (field, label, log_x) in zip(fig.subplots(1, 2), panels):
        drawn = False
        for f in sorted(distinct(chosen, "features"), key=families.order_key):
            mine = select(chosen, features=f)
            x = _positive(column(mine, field)) if log_x else column(mine, field)
            y = _positive([r["rel_error_median"] for r in mine])
            keep = np.isfinite(x) & np.isfinite(y)
            if keep.any():
                ax.scatter(x[keep], y[keep], s=24, color=style.series_color(f), alpha=0.8, edgecolors="none", label=f)
                drawn = True
        if not drawn:
            _note(ax, "no head has both values")
            continue
        ax.set_yscale("log")
        if log_x:
            ax.set_xscale("log")
        ax.set_xlabel(label, fontsize=9)
        ax.set_ylabel(f"relative output error {OUTPUT_ERROR}", fontsize=9)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=8, title="features", title_fontsize=8)
    fig.suptitle(f"Per-head FAVOR error against head diagnostics: {coupling}, m = {m}, bidirectional, one point per "
                 f"head and family\n{_setting(result, rows)}", fontsize=10)
    fig.tight_layout()
    return fig


def _target_figure(result, rows):
    """Heads × layers: relative output error at the largest m of the recommended arm, with the target as a contour."""
    recommendation = result["params"]["recommendation"]
    target = recommendation["target"]
    arm = next((a for a in recommendation.get("arms", []) if a.get("arm") == recommendation.get("best_arm")), None)
    features, coupling, mode = ((arm["features"], arm["coupling"], arm["mode"]) if arm else
                                (rows[0]["features"], rows[0]["coupling"], rows[0]["mode"]))
    m = max(r["m"] for r in rows)
    layers = _layers(result, rows)
    n_heads = max(r["head"] for r in rows) + 1
    grid = np.full((n_heads, len(layers)), np.nan)
    for r in select(rows, features=features, coupling=coupling, mode=mode, m=m):
        grid[r["head"], layers.index(r["layer"])] = _positive([r["rel_error_median"]])[0]
    fig = Figure(figsize=(max(8.0, 0.62 * len(layers) + 3.2), max(5.0, 0.42 * n_heads + 3.4)))
    ax = fig.subplots()
    ax.set_facecolor("0.88")
    values = grid[~np.isnan(grid)]
    if values.size:
        # The colour scale always spans the target, so the contour's level is on the bar.
        lo, hi = min(values.min(), target), max(values.max(), target)
        norm = LogNorm(lo / 1.5, hi * 1.5) if lo == hi else LogNorm(lo, hi)
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", norm=norm, aspect="auto", interpolation="nearest")
        bar = fig.colorbar(image, ax=ax, label=f"relative output error {OUTPUT_ERROR}\n(median over draws)")
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.2g}"))
        if hi / lo < 30:
            bar.ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:.2g}"))
        bar.ax.axhline(target, color="red", lw=2)
        if not values.min() <= target <= values.max():
            pass  # every cell on one side of the target: no contour to draw (the bar's red line still shows it)
        elif grid.shape[0] >= 2 and grid.shape[1] >= 2 and np.isfinite(grid).all():
            ax.contour(np.arange(len(layers)), np.arange(n_heads), np.log(grid), levels=[np.log(target)],
                       colors="red", linewidths=2)
        else:  # a contour needs a 2-D grid of values: outline the cells that reach the target instead
            for i, j in np.argwhere(grid <= target):
                ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, edgecolor="red", lw=2.2))
        _annotate_cells(ax, grid, norm)
    else:
        _note(ax, f"no values for {features} / {coupling} at m = {m}")
    _layer_head_axes(ax, layers, n_heads)
    model = (result["params"].get("model") or {}).get("model")
    heading = (f"{model}: " if model else "") + f"FAVOR {features} / {coupling}, {mode}, m = {m}; red: target {target:g}"
    paragraph = textwrap.fill(recommendation.get("paragraph", ""), width=110)
    fig.suptitle(f"{heading}\n{paragraph}", fontsize=8, ha="left", x=0.02)
    fig.tight_layout(rect=(0, 0, 1, 0.97 - 0.022 * paragraph.count("\n")))
    return fig
