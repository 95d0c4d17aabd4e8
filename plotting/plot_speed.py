"""Forward time and peak memory against L for experiment "speed" (the layout of the Performers paper's Fig. 3).

One column per shape (regular: 8 heads, small: 1 head). Top: median forward time against L, log-log, solid lines at
one thread and dashed at two; the fitted log-log slope of each method is in the legend (≈ 1 linear, ≈ 2 quadratic).
Bottom: the rise of the resident set during one forward (measured at one thread), with the inputs + outputs level
dotted. Times are wall clock on a possibly shared machine: the title gives the median load average. A run with
--backend cuda shows device time (CUDA events) and the device bytes one forward allocates, one row per point.
"""
import numpy as np
from matplotlib.figure import Figure

import families
from result_file import ResultFileError, column, distinct, in_order, require_fields, select

TIME_FIELDS = ["kind", "method", "shape", "L", "heads", "threads", "seconds_median", "peak_bytes", "input_bytes",
               "output_bytes", "load_average"]
METHODS = ["exact", "exact_reference", "exact_causal", "favor_bidirectional", "favor_oprf", "favor_sderf", "favor_causal",
           "permuteformer", "permuteformer_causal", "gemm", "identity"]
COLORS = {"exact": "tab:red", "exact_causal": "tab:orange", "favor_bidirectional": "tab:blue", "favor_causal": "tab:green", "permuteformer": "tab:purple", "gemm": "tab:gray",
          "exact_reference": "lightcoral", "permuteformer_causal": "mediumpurple", "identity": "black", "favor_oprf": families.COLORS["oprf"], "favor_sderf": families.COLORS["sderf"]}
LABELS = {"exact": "exact", "exact_causal": "exact causal", "favor_bidirectional": "FAVOR bidirectional", "favor_causal": "FAVOR causal", "permuteformer": "PermuteFormer",
          "exact_reference": "exact, naive reference kernel", "permuteformer_causal": "PermuteFormer causal", "gemm": "bare GEMMs of FAVOR", "identity": "X(OPT) (identity)", "favor_oprf": "FAVOR, oprf features",
          "favor_sderf": "FAVOR, sderf features"}
SHAPES = ["regular", "small"]


def plot_speed(result):
    """{"speed.png": figure}."""
    rows = [r for r in result["rows"] if r.get("kind") == "time"]
    if not rows:
        raise ResultFileError("no time rows to plot")
    require_fields(rows, TIME_FIELDS)
    fits = [r for r in result["rows"] if r.get("kind") == "fit"]
    gpu = result["params"].get("backend") == "cuda"
    shapes = in_order(distinct(rows, "shape"), SHAPES)
    methods = in_order(distinct(rows, "method"), METHODS)
    fig = Figure(figsize=(5.6 * len(shapes), 8.4))
    axes = fig.subplots(2, len(shapes), squeeze=False)
    for col, shape in enumerate(shapes):
        sel = select(rows, shape=shape)
        heads = sel[0]["heads"]
        ax_t, ax_m = axes[0][col], axes[1][col]
        for method in methods:
            color = COLORS.get(method, "tab:purple")
            for threads in distinct(sel, "threads"):
                pts = sorted(select(sel, method=method, threads=threads), key=lambda r: r["L"])
                if not pts:
                    continue
                fit = select(fits, shape=shape, method=method, threads=threads)
                slope = fit[0].get("slope") if fit else None
                label = LABELS.get(method, method) + ("" if gpu else f", {threads} thr")
                if slope is not None:
                    label += f" (slope {slope:.2f})"
                ax_t.plot(column(pts, "L"), column(pts, "seconds_median"), color=color, marker="o", markersize=3,
                          linestyle="-" if threads == 1 else "--", label=label)
            mem = sorted(select(sel, method=method, threads=min(r["threads"] for r in sel)), key=lambda r: r["L"])
            peak = column(mem, "peak_bytes")
            ok = np.isfinite(peak) & (peak > 0)
            if ok.any():
                ax_m.plot(column(mem, "L")[ok], peak[ok] / 2**20, color=color, marker="o", markersize=3,
                          label=LABELS.get(method, method))
        io = {r["L"]: r["input_bytes"] + r["output_bytes"] for r in sel}  # every L measured by any method
        lengths = sorted(io)
        ax_m.plot(lengths, [io[n] / 2**20 for n in lengths], color="black", linestyle=":", label="inputs + outputs")
        for ax in (ax_t, ax_m):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("sequence length L")
            ax.grid(True, which="both", alpha=0.3)
        ax_t.set_ylabel("forward time, median (s)" + (", device" if gpu else ""))
        ax_m.set_ylabel("device memory allocated by a forward (MiB)" if gpu else "peak rise of resident memory (MiB)")
        ax_t.set_title(f"{shape}: {heads} head(s), d = {sel[0].get('d')}, m = {sel[0].get('m')}, float32",
                       fontsize=10)
        ax_t.legend(fontsize=6.5, ncol=1)
        ax_m.legend(fontsize=7)
    load = np.nanmedian(column(rows, "load_average"))
    if gpu:
        fig.suptitle(f"Forward time and memory against L on {result['params'].get('cuda_device', 'the GPU')} "
                     f"(median of {result['params'].get('repeats')} repeats, device time)", fontsize=10)
        fig.tight_layout()
        return {"speed.png": fig}
    fig.suptitle(f"Forward time and memory against L (median of {result['params'].get('repeats')} interleaved "
                 f"repeats; load average ≈ {load:.1f}; memory at one thread)", fontsize=10)
    fig.tight_layout()
    return {"speed.png": fig}
