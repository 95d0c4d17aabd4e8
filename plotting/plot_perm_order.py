"""Figures for experiment "perm-order": the order of random permutations (PermuteFormer) and the lcm over heads."""
import math

import numpy as np
from matplotlib.figure import Figure

from result_file import ResultFileError, column, require_fields

ORDER_FIELDS = ["n", "exact_mean_order", "mc_mean_order", "mc_stderr", "landau", "goh_schmutz_mean_order",
                "mc_median_order"]
HIST_FIELDS = ["n", "bin_width", "bin_count", "mc_counts", "erdos_turan_mean_log", "erdos_turan_var_log"]
HEADS_FIELDS = ["heads", "head_size", "trials", "bin_width", "mc_counts", "max_log10_lcm", "upper_bound_log10_lcm",
                "mc_median_log10_lcm", "max_exact"]


def plot_perm_order(result):
    """{"perm_order.png": order against n and ln(order) histograms, "perm_order_heads.png": log10 lcm over heads}."""
    rows = result["rows"]
    orders = sorted((r for r in rows if r.get("kind") == "order"), key=lambda r: r["n"])
    hists = sorted((r for r in rows if r.get("kind") == "log_order_histogram"), key=lambda r: r["n"])
    heads = sorted((r for r in rows if r.get("kind") == "heads_lcm"), key=lambda r: r["heads"])
    if not orders and not heads:
        raise ResultFileError('no rows of kind "order" or "heads_lcm"')
    figures = {}
    if orders:
        require_fields(orders, ORDER_FIELDS)
        require_fields(hists, HIST_FIELDS)
        figures["perm_order.png"] = _order_figure(result, orders, hists)
    if heads:
        require_fields(heads, HEADS_FIELDS)
        figures["perm_order_heads.png"] = _heads_figure(result, heads)
    return figures


def _normal(x, mean, var):
    return np.exp(-(x - mean) ** 2 / (2 * var)) / math.sqrt(2 * math.pi * var)


def _order_figure(result, orders, hists):
    """Left: mean/median/max order against n. Right: ln(order) histograms at the two largest n with Erdős–Turán."""
    shown = hists[-2:]
    fig = Figure(figsize=(6.0 + 5.0 * len(shown), 5.8))
    axes = fig.subplots(1, 1 + len(shown))
    ax = axes[0]
    n = column(orders, "n")
    ax.plot(n, column(orders, "exact_mean_order"), "o-", color="tab:blue", label="exact E[order]")
    mc = column(orders, "mc_mean_order")
    ax.errorbar(n, mc, yerr=2 * column(orders, "mc_stderr"), fmt="none", ecolor="tab:cyan", capsize=3,
                label="Monte Carlo mean ± 2 s.e.")
    ax.plot(n, mc, "x", color="tab:cyan")
    ax.plot(n, column(orders, "mc_median_order"), "s--", color="tab:green", label="median (Monte Carlo)")
    ax.plot(n, np.array([float(r["landau"]) for r in orders]), "^-", color="tab:red", label="Landau g(n) = max")
    ax.plot(n, column(orders, "goh_schmutz_mean_order"), ":", color="tab:purple",
            label="Goh–Schmutz exp(C √(n/ln n))")
    ax.axhline(3000, color="black", lw=0.8, ls="--")
    ax.text(n[0], 3000 * 1.3, "3000 (PermuteFormer, n = 64)", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(n, [str(int(v)) for v in n])
    ax.set_xlabel("permutation size n")
    ax.set_ylabel("order")
    ax.set_title("order of a uniform permutation of n")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")

    for ax, h in zip(axes[1:], shown):
        width, bins = h["bin_width"], h["bin_count"]
        edges = np.arange(bins + 1) * width
        counts = np.asarray(h["mc_counts"], dtype=float)
        total = counts.sum()
        ax.bar(edges[:-1], counts / (total * width), width=width, align="edge", color="tab:blue", alpha=0.45,
               label=f"Monte Carlo ({int(total)} draws)")
        if h.get("exact_probability") is not None:
            p = np.asarray(h["exact_probability"], dtype=float)
            ax.step(edges, np.append(p, p[-1]) / width, where="post", color="black", lw=1.0,
                    label="exact distribution")
        x = np.linspace(0, edges[-1], 400)
        ax.plot(x, _normal(x, h["erdos_turan_mean_log"], h["erdos_turan_var_log"]), color="tab:red", lw=1.5,
                label="Erdős–Turán N(½ln²n, ⅓ln³n)")
        if h.get("exact_mean_log_order") is not None:
            ax.plot(x, _normal(x, h["exact_mean_log_order"], h["exact_var_log_order"]), color="tab:orange", lw=1.2,
                    ls="--", label="normal, exact mean & variance")
        row = next(r for r in orders if r["n"] == h["n"])
        if row.get("exact_mean_order") is not None:
            ax.axvline(math.log(row["exact_mean_order"]), color="tab:blue", ls=":", lw=1.2, label="ln E[order]")
        if h["n"] == 64:
            ax.axvline(math.log(3000), color="black", ls="--", lw=0.8, label="ln 3000")
        ax.set_xlabel("ln(order)")
        ax.set_ylabel("density")
        ax.set_title(f"n = {h['n']}: ln(order)")
        ax.legend(fontsize=8, loc="upper right")
        ax.grid(True, alpha=0.3)
    # With looks (--until-conclusive) an open size draws more than the pilot: give the range.
    counts = sorted({r["trials"] for r in orders if r.get("trials") is not None})
    trials = (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}") if counts else "?"
    fig.suptitle(f"PermuteFormer: order of random permutations ({trials} Monte Carlo draws per n)")
    fig.tight_layout()
    return fig


def _heads_figure(result, heads):
    """Per H: histogram of log10 lcm of the heads' orders, the exact maximum, its bound and 1e27."""
    fig = Figure(figsize=(10.5, 2.1 + 2.0 * len(heads)))
    axes = np.atleast_1d(fig.subplots(len(heads), 1, sharex=True))
    top = max(max(r["upper_bound_log10_lcm"] for r in heads), 27.5) + 0.5
    for ax, r in zip(axes, heads):
        width = r["bin_width"]
        counts = np.asarray(r["mc_counts"], dtype=float)
        edges = np.arange(len(counts) + 1) * width
        ax.bar(edges[:-1], counts / counts.sum(), width=width, align="edge", color="tab:blue", alpha=0.6)
        ax.axvline(r["mc_median_log10_lcm"], color="tab:green", lw=1.5, label="median (Monte Carlo)")
        ax.axvline(r["max_log10_lcm"], color="tab:red", lw=1.8,
                   label="max reachable" + (" (exact)" if r["max_exact"] else " (best found)"))
        if r["upper_bound_log10_lcm"] > r["max_log10_lcm"] + 1e-9:
            ax.axvline(r["upper_bound_log10_lcm"], color="tab:red", ls=":", lw=1.2, label="single-pool bound")
        ax.axvline(27, color="black", ls="--", lw=1.0, label="1e27 (PermuteFormer)")
        ax.set_xlim(0, top)
        ax.set_ylabel("fraction")
        ax.set_title(f"H = {r['heads']} heads of size {r['head_size']}: median 10^{r['mc_median_log10_lcm']:.1f}, "
                     f"max 10^{r['max_log10_lcm']:.2f}", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper left" if r["mc_median_log10_lcm"] > 6 else "upper center")
    axes[-1].set_xlabel("log10 lcm of the heads' orders (longest encodable relative distance)")
    fig.suptitle(f"lcm over heads: Monte Carlo ({heads[0]['trials']} draws per H), exact maximum and 1e27")
    fig.tight_layout()
    return fig
