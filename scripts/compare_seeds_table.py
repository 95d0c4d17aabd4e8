#!/usr/bin/env python3
"""The two tables of docs/compare.md, from what favorlab measures (tests/compare_docs_check.py keeps them in step).

compare_seeds_table.py seeds SUMMARY.json
    The false-change rate of seed-to-seed reruns: the summary scripts/compare-seeds.sh writes
    (results/compare/seeds.json), one row per experiment.
compare_seeds_table.py power FAVORLAB RESULTS_DIR
    What judges each experiment's statistics and what a planted change would show: favorlab compare of each committed
    quick file RESULTS_DIR/EXPERIMENT.json against itself (--out), the test each statistic gets at the file's own
    counts, and of the statistics past the heavy-tail gate how many a new value of 2, 3 and 10 times the baseline's
    would flag.
"""

import json
import os
import subprocess
import sys
import tempfile

EXPERIMENTS = ["unbiased", "mse", "orthogonal", "smreg", "estimators", "tails", "moments", "structured", "perm-order",
               "redraw"]
# Tests past the heavy-tail gate (results/result_compare.hpp), and the table's names for each test.
DISTRIBUTION_FREE = ("chebyshev", "hoeffding", "bernstein")
GATED = DISTRIBUTION_FREE + ("sampled_chebyshev",)


def percent(k, n):
    return "–" if n == 0 else "%.1f %%" % (100.0 * k / n)


def seeds_table(summary):
    """Markdown lines: experiment, pairs, changed, rate with its Clopper-Pearson interval, undecided, coverage."""
    lines = ["| experiment | seed pairs | changed | false-change rate (95 % interval) | undecided "
             "| compared: least, median |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name in EXPERIMENTS:
        e = summary["experiments"].get(name)
        if e is None:
            continue
        lo, hi = e["interval"]
        lines.append("| `%s` | %d | %d | %.3f (%.3f–%.3f) | %d | %s, %s |" % (
            name, e["pairs"], e["changed"], e["rate"], lo, hi, e["undecided"],
            percent(e["coverage_min"], 1), percent(e["coverage_median"], 1)))
    return lines


def power_row(name, report):
    by_test = report["statistics"]["by_test"]
    total = sum(by_test.values()) + report["statistics"]["skipped_heavy_tailed"] + \
        report["statistics"]["skipped_nonfinite"]
    count = lambda tests: sum(by_test.get(t, 0) for t in tests)
    free, sampled = count(DISTRIBUTION_FREE), count(("sampled_chebyshev",))
    # In a file compared with itself a statistic no test applies to is "rounding" (identical values).
    stats = report["statistics"]
    none = count(("rounding",)) + stats["skipped_heavy_tailed"] + stats["skipped_nonfinite"]
    gated_flagged = {}
    for p in report["power"]:
        tests = p["by_test"]
        gated_flagged[p["factor"]] = (sum(tests[t][0] for t in GATED if t in tests),
                                      sum(tests[t][1] for t in GATED if t in tests))
    cells = [name, str(total), str(by_test.get("z", 0)), str(free), str(sampled), str(by_test.get("binomial", 0)),
             str(by_test.get("deterministic", 0)), str(none)]
    for factor in (2, 3, 10):
        k, n = gated_flagged[factor]
        cells.append("%d of %d" % (k, n))
    return "| `%s` | " % cells[0] + " | ".join(cells[1:]) + " |"


def power_table(reports):
    """Markdown lines from {experiment: favorlab.compare/1 report of the committed file against itself}."""
    lines = ["| experiment | statistics | z | distribution-free | sampled Chebyshev | binomial | exact | no test | "
             "past the gate: ×2 flagged | ×3 | ×10 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in EXPERIMENTS:
        if name in reports:
            lines.append(power_row(name, reports[name]))
    return lines


def self_reports(favorlab, results_dir):
    """favorlab compare FILE FILE --out REPORT for every experiment's committed file."""
    reports = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXPERIMENTS:
            path = os.path.join(results_dir, name + ".json")
            out = os.path.join(tmp, name + ".report.json")
            done = subprocess.run([favorlab, "compare", path, path, "--out", out, "--max-uncompared", "1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise SystemExit("favorlab compare %s %s: exit %d: %s" % (path, path, done.returncode, done.stderr))
            with open(out) as f:
                reports[name] = json.load(f)
    return reports


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "seeds":
        with open(sys.argv[2]) as f:
            print("\n".join(seeds_table(json.load(f))))
    elif len(sys.argv) == 4 and sys.argv[1] == "power":
        print("\n".join(power_table(self_reports(sys.argv[2], sys.argv[3]))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
