#!/usr/bin/python3
"""Compares two directories of favorlab result files field by field, ignoring provenance.

Usage: scripts/compare_results.py OLD_DIR NEW_DIR
For each <experiment>.json in NEW_DIR: "same", "new", or the dotted paths of the fields that differ (list indices
shown as #). Timings and measured memory differ between any two runs; everything else must not, for the same seed
and build options. Exit status 1 when a field outside TIMING_FIELDS differs (or a file is missing), else 0.
"""
import json
import os
import sys

# Fields that hold wall-clock or memory measurements (and what is computed from them): they differ run to run.
TIMING_FIELDS = {"seconds", "seconds_median", "seconds_min", "cpu_seconds_median", "exact_seconds", "favor_seconds",
                 "permute_seconds", "time_ratio", "time_ratio_to_dense", "vectors_per_second", "ratio_to_exact",
                 "ratio_to_gemm", "ratio_to_identity", "cpu_ratio_to_exact", "cpu_ratio_to_gemm", "crossover_L",
                 "dropped", "gemm_flops_per_second", "load_average", "memory_ratio", "peak_bytes", "slope",
                 "evaluations_per_second", "ceiling", "estimates_seconds_median", "flops_per_second",
                 "fraction_of_fma_peak", "products_flops_per_second", "products_seconds_median", "rate", "steps",
                 "sweep_gemm_flops_per_second", "sweep_seconds_median"}


def differing(a, b, path, out):
    """Collect the dotted paths where a and b differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            differing(a.get(key), b.get(key), path + [key], out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b):
            differing(x, y, path + ["#"], out)
    elif a != b:
        out.add(".".join(path))


def timing_only(paths, checks_of_timings):
    """Whether every differing path is a timing field or belongs to a measured (timing) check."""
    for p in paths:
        leaf = p.split(".")[-1]
        if leaf in TIMING_FIELDS:
            continue
        if p.startswith("checks.#.") and checks_of_timings:
            continue
        return False
    return True


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    old_dir, new_dir = argv[1], argv[2]
    status = 0
    for name in sorted(f for f in os.listdir(new_dir) if f.endswith(".json")):
        old_path = os.path.join(old_dir, name)
        if not os.path.exists(old_path):
            print(f"new      {name}")
            continue
        with open(old_path, encoding="utf-8") as f:
            old = json.load(f)
        with open(os.path.join(new_dir, name), encoding="utf-8") as f:
            new = json.load(f)
        old.pop("provenance", None)
        new.pop("provenance", None)
        paths = set()
        differing(old, new, [], paths)
        if not paths:
            print(f"same     {name}")
            continue
        # Checks may differ only in files with timing or memory targets ("Target: ..." claims, read from timings).
        targets = any(c.get("claim", "").startswith("Target") for c in new.get("checks", []))
        kind = "timings" if timing_only(paths, targets) else "DIFFERS"
        if kind == "DIFFERS":
            status = 1
        print(f"{kind:8s} {name}: {', '.join(sorted(paths))}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
