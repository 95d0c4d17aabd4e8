"""Figures for experiment "moments": Lemma 3 (moments A(2k, d) of u1 = w1/|w|) and Lemma 6 (max tau against d/(d+2))."""
import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import style
from result_file import ResultFileError, column, critical_z, distinct, require_fields, select

SPHERE_FIELDS = ["d", "power", "a_theory", "mean", "stderr", "z", "status"]
TAU_FIELDS = ["d", "max_tau", "bound", "argmax", "runner_up_tau", "runner_up", "status"]
K_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive"]


def plot_moments(result):
    """{"moments.png": A(2k, d) Monte Carlo vs theory, "moments_tau.png": max tau / (d/(d+2)) against d}.

    Either figure is left out when the result has no rows of its kind.
    """
    rows = result["rows"]
    sphere = [r for r in rows if r.get("kind") == "sphere_moment"]
    taus = [r for r in rows if r.get("kind") == "tau"]
    if not sphere and not taus:
        raise ResultFileError('no rows of kind "sphere_moment" or "tau"')
    figures = {}
    if sphere:
        require_fields(sphere, SPHERE_FIELDS)
        figures["moments.png"] = _sphere_figure(result, sphere)
    if taus:
        require_fields(taus, TAU_FIELDS)
        figures["moments_tau.png"] = _tau_figure(result, taus)
    return figures


def sphere_moment(k, d):
    """A(2k, d) = Γ(k+½) Γ(d/2) / (Γ(½) Γ(d/2+k)) for an array of real d."""
    d = np.asarray(d, dtype=float)
    lg = np.vectorize(math.lgamma)
    return np.exp(math.lgamma(k + 0.5) - math.lgamma(0.5) + lg(d / 2) - lg(d / 2 + k))


def _sphere_figure(result, rows):
    """Left: even moments on log axes, Monte Carlo over the formula. Right: z of every moment, even and odd."""
    even = [r for r in rows if r["power"] % 2 == 0]
    odd = [r for r in rows if r["power"] % 2 == 1]
    ks = sorted({r["power"] // 2 for r in even})
    dims = distinct(rows, "d")
    fig = Figure(figsize=(13.5, 6.2))
    left, right = fig.subplots(1, 2)
    grid = np.geomspace(min(dims), max(dims), 300)
    for i, k in enumerate(ks):
        color = K_COLORS[i % len(K_COLORS)]
        left.plot(grid, sphere_moment(k, grid), color=color, lw=1.3)
        mine = sorted(select(even, power=2 * k), key=lambda r: r["d"])
        d, mean, err = column(mine, "d"), column(mine, "mean"), 2 * column(mine, "stderr")
        lower = np.where(mean - err > 0, err, mean * (1 - 1e-3))  # a log axis cannot show a lower end ≤ 0
        left.errorbar(d, mean, yerr=[lower, err], fmt="none", ecolor=color, alpha=0.7, capsize=2)
        style.plot_by_status(left, d, mean, [r["status"] for r in mine], color)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xticks(dims, [str(d) for d in dims])
    left.set_xlabel("dimension d")
    left.set_ylabel(r"E[$u_1^{2k}$] (log scale)")
    left.set_title("Monte Carlo ± 2 s.e. over (2k−1)!! / (d(d+2)⋯(d+2k−2))")
    left.grid(True, which="major", alpha=0.3)

    offsets = np.linspace(-0.25, 0.25, max(len(ks), 1))
    for i, k in enumerate(ks):
        color = K_COLORS[i % len(K_COLORS)]
        for subset, shift in ((select(even, power=2 * k), 0.0), (select(odd, power=2 * k - 1), 0.06)):
            subset = sorted(subset, key=lambda r: r["d"])
            if not subset:
                continue
            x = np.array([dims.index(r["d"]) for r in subset]) + offsets[i] + shift
            statuses = [r["status"] for r in subset]
            if subset[0]["power"] % 2 == 1:
                z = column(subset, "z")
                for hollow in (False, True):
                    keep = np.array([(s == "inconclusive") == hollow for s in statuses])
                    right.plot(x[keep], z[keep], linestyle="none", marker="d", markersize=4, color=color, alpha=0.6,
                               markerfacecolor="none" if hollow else color)
            else:
                style.plot_by_status(right, x, column(subset, "z"), statuses, color)
    for z in sorted({critical_z(c) for c in result["checks"] if c.get("claim", "").startswith("Lemma 3")} - {None}):
        right.axhline(z, color="black", ls="--", lw=1)
        right.axhline(-z, color="black", ls="--", lw=1)
    right.axhline(0, color="gray", lw=0.8)
    right.set_xticks(range(len(dims)), [str(d) for d in dims])
    right.set_xlabel("dimension d (moments side by side, k = 1, 2, … left to right)")
    right.set_ylabel("z = (mean − theory) / s.e.")
    right.set_title("z of every moment (odd powers 2k−1 against 0: diamonds)")
    right.grid(True, axis="y", alpha=0.3)

    trials = result["params"].get("trials", "?")
    fig.suptitle(f"Lemma 3 / eq. 22: moments of u₁ = ωᵀe₁/‖ω‖, ω ~ N(0, I_d) ({trials} trials per d)")
    handles = [Line2D([], [], color=K_COLORS[i % len(K_COLORS)], marker="o", label=f"k = {k}")
               for i, k in enumerate(ks)]
    handles.append(Line2D([], [], color="gray", marker="d", linestyle="none", label="odd power (z only)"))
    handles.append(Line2D([], [], color="black", ls="--", label="± critical |z| (Bonferroni)"))
    handles += style.status_handles()
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.04), ncol=min(len(handles), 7), fontsize=9,
               frameon=False)
    fig.text(0.5, 0.005, r"Hollow points are inconclusive: $u_1^n$ is so skewed or heavy-tailed at large n and d that a "
             "z test needs more trials (row field trials_needed).", ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def _tau_figure(result, rows):
    """max τ / (d/(d+2)) against d (1 means the bound is attained), with the runner-up and its closed form."""
    rows = sorted(rows, key=lambda r: r["d"])
    d = column(rows, "d")
    bound = column(rows, "bound")
    fig = Figure(figsize=(9.5, 5.8))
    ax = fig.subplots()
    ax.plot(d, (d + 2) / (d + 4), color="tab:orange", lw=1.2, label="τ(4, 2) / bound")
    style.plot_by_status(ax, d, column(rows, "max_tau") / bound, [r["status"] for r in rows], "tab:blue", markersize=4)
    ax.plot(d, column(rows, "runner_up_tau") / bound, linestyle="none", marker=".", color="tab:orange", markersize=5)
    ax.axhline(1, color="black", ls="--", lw=1)
    argmaxes = sorted({_nonzero_text(r, "argmax") for r in rows})
    runners = sorted({_nonzero_text(r, "runner_up") for r in rows})
    ax.set_xlabel("dimension d")
    ax.set_ylabel("τ / (d/(d+2))")
    ax.set_ylim(float(np.nanmin(column(rows, "runner_up_tau") / bound)) - 0.05, 1.03)
    ax.grid(True, alpha=0.3)
    p = result["params"]
    ax.set_title("Lemma 6: largest τ over all even compositions, m ≤ d, "
                 f"total degree ≤ {p.get('tau_max_degree', '?')}\n"
                 f"maximiser {', '.join(argmaxes)} (+ zeros); runner-up {', '.join(runners)}", fontsize=10)
    handles = [Line2D([], [], color="tab:blue", marker="o", linestyle="none", label="max τ / bound"),
               Line2D([], [], color="tab:orange", marker=".", linestyle="none", label="runner-up τ / bound"),
               Line2D([], [], color="tab:orange", lw=1.2, label="τ(4, 2) / bound = (d+2)/(d+4)"),
               Line2D([], [], color="black", ls="--", label="bound d/(d+2)")]
    handles += style.status_handles()
    ax.legend(handles=handles, loc="lower right", fontsize=9)
    equal = sum(1 for r in rows if r.get("exact_comparison") == "equal")
    fig.text(0.5, 0.01, f"max τ equals d/(d+2) exactly (integer arithmetic) at {equal} of {len(rows)} dimensions: "
             "the lemma's ≤ is attained, by (2, 2).", ha="center", va="bottom", fontsize=8, color="dimgray")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def _nonzero_text(row, field):
    """The composition in field without its trailing zeros: "(2, 2, 0, …, 0)" -> "(2, 2)"."""
    parts = row.get(f"{field}_parts")
    if isinstance(parts, list):
        return "(" + ", ".join(str(p) for p in parts) + ")"
    kept = [p for p in str(row[field]).strip("()").split(", ") if p not in ("0", "…")]
    return "(" + ", ".join(kept) + ")"
