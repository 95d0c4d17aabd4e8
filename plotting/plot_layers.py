"""Fig. 14 analogue for experiment "layers": relative output error of FAVOR against exact attention after n random
Transformer layers (mean ± std over draws of W), and the error of each layer alone on the exact input."""
from matplotlib.figure import Figure

from result_file import ResultFileError, column, require_fields

FIELDS = ["layers", "rel_error_mean", "rel_error_std", "local_error_mean", "local_error_std", "trials"]


def plot_layers(result):
    """{"layers.png": error against depth}."""
    rows = sorted(result["rows"], key=lambda r: r["layers"])
    require_fields(rows, FIELDS)
    if not rows:
        raise ResultFileError("no rows to plot")
    n = column(rows, "layers")
    fig = Figure(figsize=(7.5, 5.2))
    ax = fig.subplots()
    ax.errorbar(n, column(rows, "rel_error_mean"), yerr=column(rows, "rel_error_std"), marker="o", capsize=3,
                label="after n layers (errors propagate)")
    ax.errorbar(n, column(rows, "local_error_mean"), yerr=column(rows, "local_error_std"), marker="s", capsize=3,
                ls="--", label="layer n alone, on the exact input")
    ax.set_yscale("log")
    ax.set_xlabel("number of layers n")
    ax.set_ylabel("‖Y_favor − Y_exact‖_F / ‖Y_exact‖_F   (mean ± std)")
    p = result["params"]
    factor = result.get("provenance", {}).get("growth_factor_per_layer")
    extra = f"; fitted growth ×{factor:.3g} per layer" if isinstance(factor, (int, float)) else ""
    ax.set_title(f"FAVOR ({p.get('features')}, {p.get('coupling')}, m = {p.get('m')}) vs exact: width "
                 f"{p.get('width')}, {p.get('heads')} heads, L = {p.get('L')}\n{int(rows[0]['trials'])} draws of W"
                 f"{extra}", fontsize=10)
    ax.legend(fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return {"layers.png": fig}
