#!/usr/bin/python3
"""Forward time against L of favorlab, PyTorch and performer-pytorch, from results/peer-speed.json
(scripts/peer-bench.sh; experiment "peer-speed").

Left: median time against L, log-log, every implementation and method; one colour per computation (favorlab's colours
of plot_speed.py: exact red, causal exact orange, bidirectional FAVOR blue, causal FAVOR green) and one line style per
implementation (favorlab solid, PyTorch dashed, performer-pytorch dotted), so each peer sits on the colour of the
favorlab method it is compared with. Right: the ratios of the same run against L with their targets (dashed), and
dotted in the same colour the ceiling of a performer-pytorch ratio (performer-pytorch over favorlab's bare GEMMs).
Times are wall clock on a possibly shared machine: the title gives the median load average and the versions. A run
over several thread counts is drawn at its smallest (the others are in the file and in the script's ratio table).

Usage: /usr/bin/python3 plotting/plot_peer_speed.py [RESULT] [--out PNG]
(defaults: results/peer-speed.json, results/figures/peer-speed.png). Needs no torch.
"""
import argparse
import os
import sys

import numpy as np
from matplotlib.figure import Figure

from figure_writer import save_png
from plot_speed import COLORS as SPEED_COLORS, LABELS as SPEED_LABELS, METHODS as SPEED_METHODS
from result_file import ResultFileError, column, in_order, load_result, require_fields, select

EXPERIMENT = "peer-speed"
TIME_FIELDS = ["kind", "implementation", "method", "L", "seconds_median", "load_average"]
RATIO_FIELDS = ["kind", "name", "L", "value"]
IMPLEMENTATIONS = ["favorlab", "pytorch", "performer-pytorch"]
LINESTYLES = {"favorlab": "-", "pytorch": "--", "performer-pytorch": ":"}
IMPLEMENTATION_LABELS = {"favorlab": "favorlab", "pytorch": "PyTorch", "performer-pytorch": "performer-pytorch"}
# Each peer method takes the colour of the favorlab method it is compared with.
PEER_COLORS = {"sdpa_bidirectional": SPEED_COLORS["exact"], "sdpa_causal": SPEED_COLORS["exact_causal"],
               "fast_attention_bidirectional": SPEED_COLORS["favor_bidirectional"],
               "fast_attention_causal": SPEED_COLORS["favor_causal"]}
PEER_LABELS = {"sdpa_bidirectional": "scaled_dot_product_attention",
               "sdpa_causal": "scaled_dot_product_attention, causal",
               "fast_attention_bidirectional": "FastAttention", "fast_attention_causal": "FastAttention, causal"}
METHOD_ORDER = SPEED_METHODS + list(PEER_COLORS)
EXTRA_COLORS = ["tab:brown", "tab:pink", "tab:olive", "tab:cyan", "navy"]
# favorlab's headline methods are drawn bold; its other methods (oprf, sderf, PermuteFormer, GEMMs, identity) thin.
HEADLINE = {"exact", "exact_causal", "favor_bidirectional", "favor_causal"}


def series_style(implementation, method, extra):
    """Colour, label and line width of one (implementation, method) series; extra numbers unknown methods."""
    if implementation == "favorlab":
        color = SPEED_COLORS.get(method) or EXTRA_COLORS[extra % len(EXTRA_COLORS)]
        label = SPEED_LABELS.get(method, method)
        width = 1.8 if method in HEADLINE else 0.9
    else:
        color = PEER_COLORS.get(method) or EXTRA_COLORS[extra % len(EXTRA_COLORS)]
        label = PEER_LABELS.get(method, method)
        width = 1.8
    return color, f"{IMPLEMENTATION_LABELS.get(implementation, implementation)}: {label}", width


def plot_peer_speed(result):
    """{"peer-speed.png": figure}."""
    rows = [r for r in result["rows"] if r.get("kind") == "time"]
    if not rows:
        raise ResultFileError("no time rows to plot")
    require_fields(rows, TIME_FIELDS)
    threads = min(r.get("threads", 1) for r in rows)  # files of one thread count have no other
    rows = [r for r in rows if r.get("threads", 1) == threads]
    ratios = [r for r in result["rows"] if r.get("kind") == "ratio" and r.get("threads", 1) == threads]
    require_fields(ratios, RATIO_FIELDS)
    params, provenance = result["params"], result.get("provenance", {})

    fig = Figure(figsize=(13.0, 7.4))
    ax_t, ax_r = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.35, 1]})
    extra = 0
    implementations = in_order({r["implementation"] for r in rows}, IMPLEMENTATIONS)
    for implementation in implementations:
        sel = select(rows, implementation=implementation)
        for method in in_order({r["method"] for r in sel}, METHOD_ORDER):
            pts = sorted(select(sel, method=method), key=lambda r: r["L"])
            known = method in (SPEED_COLORS if implementation == "favorlab" else PEER_COLORS)
            color, label, width = series_style(implementation, method, extra)
            extra += not known
            ax_t.plot(column(pts, "L"), column(pts, "seconds_median"), color=color, linewidth=width,
                      linestyle=LINESTYLES.get(implementation, "-."), marker="o", markersize=3, label=label)
    dropped = [r for r in result["rows"] if r.get("kind") == "dropped"]
    for r in dropped:
        last = select(rows, implementation=r.get("implementation"), method=r.get("method"), L=r.get("last_L"))
        if last:
            ax_t.plot([last[0]["L"]], [last[0]["seconds_median"]], linestyle="none", marker="x", color="black",
                      markersize=7)
    ax_t.set_ylabel("forward time, median over repeats (s)")
    ax_t.set_title(f"{params.get('heads')} heads, d = {params.get('d')}, m = {params.get('m')}, float32, "
                   f"{threads} thread{'s' if threads > 1 else ''}" + ("; × last L before a drop" if dropped else ""),
                   fontsize=10)
    ax_t.legend(fontsize=6.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.13))

    names = list(dict.fromkeys(r["name"] for r in ratios))
    for i, name in enumerate(names):
        pts = sorted(select(ratios, name=name), key=lambda r: r["L"])
        color = EXTRA_COLORS[i % len(EXTRA_COLORS)]
        first = pts[0]
        if first.get("denominator_implementation") == "favorlab":
            color = SPEED_COLORS.get(first.get("denominator_method"), color)
        elif first.get("numerator_implementation") == "favorlab":
            color = SPEED_COLORS.get(first.get("numerator_method"), color)
        style = {"marker": "o", "markersize": 4, "label": name}
        if first.get("denominator_method") == "gemm" and first.get("numerator_implementation") != "favorlab":
            # A ceiling (peer over favorlab's bare GEMMs): dotted, in the colour of the ratio it bounds.
            color = PEER_COLORS.get(first.get("numerator_method"), color)
            style = {"marker": ".", "markersize": 3, "linestyle": ":", "linewidth": 1.2, "label": f"ceiling: {name}"}
        ax_r.plot(column(pts, "L"), column(pts, "value"), color=color, **style)
        target = first.get("target")
        if isinstance(target, (int, float)):
            sense = "≥" if first.get("target_sense") == "at least" else "≤"
            ax_r.axhline(target, color=color, linestyle="--", linewidth=0.9, label=f"target {sense} {target:g}")
    if not names:
        ax_r.text(0.5, 0.5, "no ratio measured", transform=ax_r.transAxes, ha="center", va="center")
    ax_r.axhline(1.0, color="black", linewidth=0.6, linestyle=":")
    ax_r.set_ylabel("time ratio (medians of the same run)")
    ax_r.set_title("numerator / denominator: > 1 means the denominator is faster", fontsize=10)
    if names:
        ax_r.legend(fontsize=6.5, ncol=1, loc="upper center", bbox_to_anchor=(0.5, -0.13))

    for ax in (ax_t, ax_r):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length L")
        ax.grid(True, which="both", alpha=0.3)
    load = np.nanmedian(column(rows, "load_average"))
    versions = ", ".join(f"{name} {provenance[key]}" for name, key in
                         (("torch", "torch"), ("performer-pytorch", "performer_pytorch"))
                         if provenance.get(key))
    capability = provenance.get("torch_cpu_capability")
    fig.suptitle(f"favorlab vs PyTorch vs performer-pytorch on CPU (median of {params.get('repeats')} interleaved "
                 f"repeats; load average ≈ {load:.1f}; {versions}"
                 + (f", torch CPU capability {capability}" if capability else "") + ")", fontsize=10)
    fig.tight_layout()
    return {"peer-speed.png": fig}


def main(argv=None):
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(description="Plot results/peer-speed.json (scripts/peer-bench.sh).")
    parser.add_argument("result", nargs="?", default="results/peer-speed.json", help="result file (%(default)s)")
    parser.add_argument("--out", default="results/figures/peer-speed.png", help="PNG to write (%(default)s)")
    args = parser.parse_args(argv)
    try:
        (fig,) = plot_peer_speed(load_result(args.result, EXPERIMENT)).values()
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        save_png(fig, args.out)
    except (ResultFileError, OSError) as e:
        print(f"plot_peer_speed: error: {args.result}: {e}", file=sys.stderr)
        return 1
    print(f"plot_peer_speed: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    import matplotlib

    matplotlib.use("Agg")
    sys.exit(main())
