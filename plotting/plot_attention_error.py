"""Fig. 4 of the paper for experiment "attention-error": output MSE of FAVOR against exact attention as m grows.

One log-scale panel per mode (bidirectional, causal): mean output MSE over the inputs with ±1 std error bars (as
in the paper's figure) per feature map (colour) and coupling (solid: orthogonal, dashed: iid). Orthogonal points whose
paired check against iid is violated get a red ring.
"""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import families
import style
from result_file import ResultFileError, distinct, require_fields, select

FIELDS = ["features", "coupling", "mode", "m", "mse_mean", "mse_std", "inputs"]
MODES = ["bidirectional", "causal"]
FEATURE_ORDER = families.ORDER
LINESTYLES = {"orthogonal": "-", "iid": "--"}


def plot_attention_error(result):
    """{"attention_error.png": MSE against m, one panel per mode}."""
    rows = result["rows"]
    if not rows:
        raise ResultFileError("no rows to plot")
    require_fields(rows, FIELDS)
    modes = [m for m in MODES if select(rows, mode=m)]
    fig = Figure(figsize=(6.0 * len(modes), 5.2))
    axes = fig.subplots(1, len(modes), squeeze=False)[0]
    features = sorted(distinct(rows, "features"), key=lambda f: FEATURE_ORDER.index(f) if f in FEATURE_ORDER else 99)
    couplings = distinct(rows, "coupling")
    for ax, mode in zip(axes, modes):
        for fi, f in enumerate(features):
            for ci, c in enumerate(couplings):
                sel = sorted(select(rows, mode=mode, features=f, coupling=c), key=lambda r: r["m"])
                if not sel:
                    continue
                m = np.array([r["m"] for r in sel], dtype=float)
                m = m * (1 + 0.03 * (fi - 1.5) + 0.012 * ci)  # small offsets keep error bars apart
                mean = np.array([np.nan if r["mse_mean"] is None else r["mse_mean"] for r in sel])
                std = np.array([np.nan if r["mse_std"] is None else r["mse_std"] for r in sel])
                lower = np.minimum(std, mean * 0.999)  # a log axis cannot show mean − std ≤ 0
                color = style.series_color(f)
                ax.errorbar(m, mean, yerr=[lower, std], color=color, linestyle=LINESTYLES.get(c, ":"), marker="o",
                            markersize=4, capsize=3, linewidth=1.3)
                for x, y, r in zip(m, mean, sel):
                    if r.get("vs_iid_status") == "violated":
                        ax.plot([x], [y], marker="o", markersize=11, markerfacecolor="none", markeredgecolor="red")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("number of random features m")
        ax.set_ylabel("output MSE against exact attention")
        ax.set_title(mode, fontsize=11)
        ax.grid(True, which="both", alpha=0.3)
    handles = [Line2D([], [], color=style.series_color(f), marker="o", label=f) for f in features]
    handles += [Line2D([], [], color="black", linestyle=LINESTYLES.get(c, ":"), label=c) for c in couplings]
    handles.append(Line2D([], [], linestyle="none", marker="o", markersize=10, markerfacecolor="none",
                          markeredgecolor="red", label="orthogonal above iid (violated)"))
    axes[-1].legend(handles=handles, fontsize=8, loc="best")
    p = result["params"]
    fig.suptitle(f"FAVOR output MSE vs exact attention (L={p.get('L')}, d={p.get('d')}, {p.get('inputs')} Gaussian "
                 f"inputs, Q/K entry sd {p.get('qk_scale')}; mean ± 1 std over inputs)", fontsize=10)
    fig.tight_layout()
    return {"attention_error.png": fig}
