#!/usr/bin/env python3
"""docs/compare.md's two tables are what favorlab measures.

Usage: compare_docs_check.py FAVORLAB REPO_ROOT [--self-test]

The seed-pair table must be scripts/compare_seeds_table.py's rendering of the committed summary
results/compare/seeds.json (scripts/compare-seeds.sh measures it), and the table of tests and planted-change power
must be its rendering of `favorlab compare` of each committed quick file results/EXPERIMENT.json against itself.
Regenerating the result files or rerunning the measurement without updating the page fails this check; the fix is
to paste the tables `compare_seeds_table.py seeds results/compare/seeds.json` and
`compare_seeds_table.py power FAVORLAB results` print.
--self-test changes one number in a copy of the page and requires the check to fail (its power case), then requires
the unchanged page to pass.
"""

import importlib.util
import json
import os
import re
import sys


def load_tables(root):
    spec = importlib.util.spec_from_file_location("compare_seeds_table",
                                                  os.path.join(root, "scripts", "compare_seeds_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_tables(favorlab, root):
    tables = load_tables(root)
    with open(os.path.join(root, "results", "compare", "seeds.json")) as f:
        seeds = tables.seeds_table(json.load(f))
    power = tables.power_table(tables.self_reports(favorlab, os.path.join(root, "results")))
    return {"seed pairs": seeds, "tests and power": power}


def problems(page, expected):
    """Why the page does not show the expected tables (an empty list when it does)."""
    lines = page.splitlines()
    out = []
    for name, table in expected.items():
        missing = [row for row in table if row not in lines]
        if missing:
            out.append("docs/compare.md: the %s table differs from what is measured; expected row:\n  %s"
                       % (name, missing[0]))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    favorlab, root = sys.argv[1], sys.argv[2]
    expected = expected_tables(favorlab, root)
    with open(os.path.join(root, "docs", "compare.md")) as f:
        page = f.read()
    if "--self-test" in sys.argv[3:]:
        # Power case: the first data row of the seed-pair table with one digit changed must be caught.
        row = expected["seed pairs"][2]
        digit = re.search(r"\d", row.split("|")[2])
        if row not in page or digit is None:
            sys.exit("self-test: the page does not show the seed-pair table to change")
        cells = row.split("|")
        cells[2] = cells[2][:digit.start()] + str((int(digit.group()) + 1) % 10) + cells[2][digit.end():]
        if not problems(page.replace(row, "|".join(cells)), expected):
            sys.exit("self-test: a changed number in the seed-pair table was not caught")
        print("compare_docs_check self-test: a changed number is caught")
    found = problems(page, expected)
    if found:
        sys.exit("\n".join(found))
    print("compare_docs_check: docs/compare.md shows the measured tables")


if __name__ == "__main__":
    main()
