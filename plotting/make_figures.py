#!/usr/bin/python3
"""Render the figures of every favorlab experiment whose result file RESULTS/<experiment>.json exists.

Usage: /usr/bin/python3 plotting/make_figures.py [--results DIR] [--out DIR] [--quiet]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")

from figure_writer import save_png  # noqa: E402  (after the backend is chosen)
from plot_attention_error import plot_attention_error  # noqa: E402
from plot_attention_matrix import plot_attention_matrix  # noqa: E402
from plot_attention_report import plot_attention_report  # noqa: E402
from plot_moments import plot_moments  # noqa: E402
from plot_mse import plot_mse  # noqa: E402
from plot_smreg import plot_smreg  # noqa: E402
from plot_gpu_peer_speed import plot_gpu_peer_speed  # noqa: E402
from plot_peer_speed import plot_peer_speed  # noqa: E402
from plot_speed import plot_speed  # noqa: E402
from plot_structured import plot_structured  # noqa: E402
from plot_estimators import plot_estimators  # noqa: E402
from plot_orthogonal import plot_orthogonal  # noqa: E402
from plot_perm_order import plot_perm_order  # noqa: E402
from plot_permute import plot_permute  # noqa: E402
from plot_tails import plot_tails  # noqa: E402
from plot_redraw import plot_redraw  # noqa: E402
from plot_unbiased import plot_unbiased  # noqa: E402
from plot_uniform import plot_uniform  # noqa: E402
from plot_kernels import plot_kernels  # noqa: E402
from plot_layers import plot_layers  # noqa: E402
from result_file import ResultFileError, load_result  # noqa: E402

# Experiment name -> function from its loaded result to {PNG file name: figure}.
PLOTS = {
    "mse": plot_mse,
    "smreg": plot_smreg,
    "orthogonal": plot_orthogonal,
    "estimators": plot_estimators,
    "tails": plot_tails,
    "moments": plot_moments,
    "unbiased": plot_unbiased,
    "structured": plot_structured,
    "perm-order": plot_perm_order,
    "permute-properties": plot_permute,
    "attention-error": plot_attention_error,
    "redraw": plot_redraw,
    "attention-matrix": plot_attention_matrix,
    "speed": plot_speed,
    "peer-speed": plot_peer_speed,
    "gpu-peer-speed": plot_gpu_peer_speed,
    "uniform": plot_uniform,
    "kernels": plot_kernels,
    "layers": plot_layers,
    "attention-report": plot_attention_report,
}


def parse_args(argv):
    """The command line options."""
    parser = argparse.ArgumentParser(description="Plot favorlab result files as PNG figures.")
    parser.add_argument("--results", default="results", metavar="DIR", help="directory of <experiment>.json files")
    parser.add_argument("--out", metavar="DIR", help="directory for the PNGs (default: RESULTS/figures)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return parser.parse_args(argv)


def render(results, out, say):
    """Plot every known experiment found in results into out; say(line) reports progress."""
    for name in sorted(f[:-len(".json")] for f in os.listdir(results) if f.endswith(".json")):
        if name not in PLOTS:
            say(f"note: skipped {name}.json: no plot for experiment {name!r}")
    for name, plot in PLOTS.items():
        path = os.path.join(results, f"{name}.json")
        if not os.path.isfile(path):
            say(f"note: skipped {name}: no {path}")
            continue
        try:
            figures = plot(load_result(path, name))
        except ResultFileError as e:
            raise ResultFileError(f"{path}: {e}") from e
        os.makedirs(out, exist_ok=True)
        for filename, fig in figures.items():
            target = os.path.join(out, filename)
            save_png(fig, target)
            say(f"wrote {target}")


def main(argv=None):
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    say = (lambda line: None) if args.quiet else print
    try:
        if not os.path.isdir(args.results):
            raise ResultFileError(f"no results directory {args.results}")
        render(args.results, args.out or os.path.join(args.results, "figures"), say)
    except (ResultFileError, OSError) as e:
        print(f"make_figures: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
