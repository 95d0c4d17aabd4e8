#!/usr/bin/python3
"""Device time against L of favorlab and the GPU libraries, from results/gpu/peer-speed.json
(scripts/gpu-peer-bench.sh; experiment "gpu-peer-speed").

One panel per shape (8 heads, 1 head) and mode (bidirectional, causal): the median device time of every entry,
log-log. Colour by implementation (favorlab blue, PyTorch SDPA red, flash-linear-attention green, performer-pytorch
grey); favorlab's exact kernel dashed, its FAVOR solid; the format (float32, tf32, bfloat16) by marker. A vertical
line marks the crossover against the fastest exact kernel of any library, where there is one; the panel title says
so or says that FAVOR never won.

Usage: /usr/bin/python3 plotting/plot_gpu_peer_speed.py [RESULT] [--out PNG]
(defaults: results/gpu/peer-speed.json, results/figures/gpu-peer-speed.png). Needs no torch.
"""
import argparse
import os
import sys

from matplotlib.figure import Figure

from figure_writer import save_png
from result_file import ResultFileError, load_result, require_fields, select

EXPERIMENT = "gpu-peer-speed"
TIME_FIELDS = ["implementation", "method", "products", "mode", "class", "shape", "L", "seconds_median"]
COLORS = {"favorlab": "tab:blue", "pytorch": "tab:red", "flash-linear-attention": "tab:green",
          "performer-pytorch": "tab:gray"}
MARKERS = {"float32": "o", "tf32": "s", "bfloat16": "^"}
SHAPES = [("regular", "8 heads"), ("small", "1 head")]
MODES = ["bidirectional", "causal"]


def plot_gpu_peer_speed(result):
    """{"gpu-peer-speed.png": figure}."""
    rows = [r for r in result["rows"] if r.get("kind") == "time" and r.get("class") in ("exact", "favor", "linear")]
    if not rows:
        raise ResultFileError("no time rows to plot")
    require_fields(rows, TIME_FIELDS)
    crossovers = [r for r in result["rows"] if r.get("kind") == "crossover" and r.get("exact_from") == "any library"]
    fig = Figure(figsize=(13.0, 9.5))
    axes = fig.subplots(len(SHAPES), len(MODES), squeeze=False)
    for i, (shape, shape_label) in enumerate(SHAPES):
        for j, mode in enumerate(MODES):
            ax = axes[i][j]
            sel = select(rows, shape=shape, mode=mode)
            series = sorted({(r["implementation"], r["method"], r["products"]) for r in sel})
            for implementation, method, products in series:
                pts = sorted(select(sel, implementation=implementation, method=method, products=products),
                             key=lambda r: r["L"])
                style = "--" if implementation == "favorlab" and method.startswith("exact") else "-"
                ax.plot([r["L"] for r in pts], [r["seconds_median"] * 1e3 for r in pts], style,
                        marker=MARKERS.get(products, "x"), markersize=4, linewidth=1.2,
                        color=COLORS.get(implementation, "black"), label=f"{implementation} {method} ({products})")
            title = f"{shape_label}, {mode}"
            found = select(crossovers, shape=shape, mode=mode)
            if found:
                title += f": {found[0]['note']}"
                if found[0].get("crossover_L"):
                    ax.axvline(found[0]["crossover_L"], color="black", linewidth=0.8, linestyle=":")
            ax.set_title(title, fontsize=9)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("sequence length L")
            ax.set_ylabel("device time (ms, median)")
            ax.grid(True, which="both", alpha=0.3)
            if series:
                ax.legend(fontsize=5.5, ncol=2)
    provenance = result.get("provenance", {})
    fig.suptitle(f"favorlab vs PyTorch SDPA, flash-linear-attention and performer-pytorch on "
                 f"{provenance.get('device', 'a GPU')} (median of {result['params'].get('repeats')} interleaved "
                 f"repeats; torch {provenance.get('torch', '?')})", fontsize=10)
    fig.tight_layout()
    return {"gpu-peer-speed.png": fig}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("result", nargs="?", default="results/gpu/peer-speed.json")
    parser.add_argument("--out", default="results/figures/gpu-peer-speed.png")
    args = parser.parse_args(argv)
    try:
        figures = plot_gpu_peer_speed(load_result(args.result, EXPERIMENT))
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        for fig in figures.values():
            save_png(fig, args.out)
    except (ResultFileError, OSError) as e:
        print(f"plot_gpu_peer_speed: error: {e}", file=sys.stderr)
        return 1
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
