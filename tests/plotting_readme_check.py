#!/usr/bin/env python3
"""plotting/README.md names every module of plotting/ and every figure the committed results hold, so a reader finds
where each PNG is drawn: fails naming what is missing.

  plotting_readme_check.py REPO_ROOT
  plotting_readme_check.py --self-test    (a module and a figure left out of a README must fail the check)
"""
import os
import re
import sys


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "plotting"))
        os.makedirs(os.path.join(root, "results", "figures"))
        for name in ("plot_a.py", "plot_b.py"):
            open(os.path.join(root, "plotting", name), "w").close()
        for name in ("a.png", "b_d1.png", "b_d2.png", "c_x.png", "c_y.png"):
            open(os.path.join(root, "results", "figures", name), "w").close()
        readme = "| `plot_a.py` | `a.png` |\n| `plot_b.py` | `b_d<d>.png`; `c_x.png`, `_y.png` |\n"
        with open(os.path.join(root, "plotting", "README.md"), "w") as f:
            f.write(readme)
        if main([None, root]) != 0:
            print("self-test: a complete README failed", file=sys.stderr)
            return 1
        for cut in ("`plot_b.py`", "`a.png`", "`_y.png`"):
            with open(os.path.join(root, "plotting", "README.md"), "w") as f:
                f.write(readme.replace(cut, "x"))
            if main([None, root]) == 0:
                print(f"self-test: a README without {cut} passed", file=sys.stderr)
                return 1
    print("plotting_readme_check self-test: ok")
    return 0


def main(argv):
    if argv[1] == "--self-test":
        return self_test()
    root = argv[1]
    readme = open(os.path.join(root, "plotting", "README.md"), encoding="utf-8").read()
    missing = [f for f in sorted(os.listdir(os.path.join(root, "plotting")))
               if f.endswith((".py", ".json")) and f"`{f}`" not in readme]
    # Figure names as the README writes them: whole ("`mse.png`"), a pattern ("`tails_d<d>.png`"), or a suffix after a
    # sibling ("`attention_report_error.png`, `_heatmap.png`").
    named = re.findall(r"`([^`]*\.png)`", readme)
    patterns = [re.compile(re.sub(r"<[a-z]+>", r"\\d+", re.escape(n)) + "$") for n in named if "<" in n]
    figures = os.path.join(root, "results", "figures")
    for png in sorted(os.listdir(figures)) if os.path.isdir(figures) else []:
        suffix = "_" + png.split("_")[-1]
        if png.endswith(".png") and png not in named and suffix not in named and not any(p.match(png) for p in patterns):
            missing.append(png)
    if missing:
        print("plotting/README.md does not name: " + ", ".join(missing), file=sys.stderr)
        return 1
    print("plotting/README.md names every module and figure: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
