#!/usr/bin/env python3
"""Checks that every number README.md and docs/ quote from a committed result file is what that file says.

Usage: docs_numbers_check.py REPO_ROOT [--self-test]

Each entry names a document, a literal snippet of it that contains the number, a result file, how to get the value
from that file's JSON (a path of keys and list indices, or a function) and how the value is written in the snippet.
The check passes when every snippet is in its document and contains the value formatted from the JSON.
--self-test copies the documents into a temporary directory, changes one checked number there and requires the
check to fail (the check's power case); it then requires the unchanged copy to pass.
"""

import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SPEED = "results/perf/speed-L16384-avx512-bced091.json"
PEER = "results/peer-speed.json"
NEWCOMER = "results/newcomer/times.json"


def sig(n):
    """Rounds to n significant digits in positional notation, trailing zeros kept (0.349, 1.27, 2.80, 13.9, 268)."""

    def fmt(x):
        s = "%#.*g" % (n, x)
        if "e" in s:
            raise ValueError("%r needs exponent notation; use sci(%d)" % (x, n))
        return s.rstrip(".")

    return fmt


def sci(n):
    """n significant digits in exponent notation without a padded exponent (4.59e-4, 1.22e-14)."""

    def fmt(x):
        mantissa, exponent = ("%.*e" % (n - 1, x)).split("e")
        return "%se%d" % (mantissa, int(exponent))

    return fmt


def fixed(decimals):
    return lambda x: "%.*f" % (decimals, x)


def integer(x):
    return "%d" % x


def check(claim):
    """The check of a result file whose claim starts with `claim`."""

    def get(doc):
        found = [c for c in doc["checks"] if c["claim"].startswith(claim)]
        if len(found) != 1:
            raise KeyError("%d checks whose claim starts with %r" % (len(found), claim))
        return found[0]

    return get


def within(claim, part):
    """'X of Y points within the target' from a measured check's detail: part 0 is X, part 1 is Y."""

    def get(doc):
        m = re.match(r"(\d+) of (\d+) points within the target", check(claim)(doc)["detail"])
        if not m:
            raise KeyError("no 'X of Y points within the target' in the detail of %r" % claim)
        return int(m.group(1 + part))

    return get


def value(claim):
    return lambda doc: check(claim)(doc)["value"]


def all_at(claim, L, threads=1):
    """The ratio at (L, threads) a peer-speed check lists in its detail ('all: L=1024/threads=1=2.28, ...'), as
    printed there."""

    def get(doc):
        m = re.search(r"L=%d/threads=%d=([0-9.e+-]+)" % (L, threads), check(claim)(doc)["detail"])
        if not m:
            raise KeyError("no L=%d/threads=%d in the detail of %r" % (L, threads, claim))
        return float(m.group(1))

    return get


def ceiling(claim, L, threads=1):
    return lambda doc: next(c["value"] for c in check(claim)(doc)["ceiling"]
                            if c["L"] == L and c["threads"] == threads)


def regular_times(doc):
    """{(method, L, threads): time row} of the 8-head speed points."""
    return {(r["method"], r["L"], r["threads"]): r for r in doc["rows"] if r["kind"] == "time"
            and r["shape"] == "regular"}


def min_max(values):
    """[min, max] getters of values(doc)."""
    return [lambda doc: min(values(doc)), lambda doc: max(values(doc))]


def regular_range(method, over=None):
    """(min, max) over the 8-head speed points (every L and thread count) of a method's fraction_of_fma_peak, or of
    its time over `over`'s."""
    if over is None:
        return min_max(lambda doc: [r["fraction_of_fma_peak"] for (m, _, _), r in regular_times(doc).items()
                                    if m == method])
    return combined_range([(method, over)])


def combined_range(pairs):
    """(min, max) of time(a)/time(b) over the 8-head points of every (a, b) in pairs."""

    def values(doc):
        t = regular_times(doc)
        return [r["seconds_median"] / t[(b, L, th)]["seconds_median"] for a, b in pairs
                for (m, L, th), r in t.items() if m == a]

    return min_max(values)


def peer_fraction(method, L, threads=1):
    """A method's fraction of the FMA peak in the peer-speed run."""
    return row(lambda r: r["kind"] == "fraction_of_fma_peak" and r["method"] == method and r["L"] == L
               and r["threads"] == threads, "value")


def row(pred, field):
    """`field` of the one row for which pred(row) is true."""

    def get(doc):
        found = [r for r in doc["rows"] if pred(r)]
        if len(found) != 1:
            raise KeyError("%d rows match for %r" % (len(found), field))
        return found[0][field]

    return get


def estimators_ratio(estimator, coupling):
    """Exact MSE relative to positive-iid at |x| = |y| = 1, cos 0.9, d = 16."""

    def get(doc):
        r = row(lambda r: r["estimator"] == estimator and r["coupling"] == coupling and r["d"] == 16
                and r["x_norm"] == 1 and r["y_norm"] == 1 and r["cos_angle"] == 0.9, "mse_exact")(doc)
        ref = row(lambda r: r["estimator"] == "positive" and r["coupling"] == "iid" and r["d"] == 16
                  and r["x_norm"] == 1 and r["y_norm"] == 1 and r["cos_angle"] == 0.9, "mse_exact")(doc)
        return r / ref

    return get


def attention_error(features, coupling, field):
    return row(lambda r: r["features"] == features and r["coupling"] == coupling and r["m"] == 256
               and r["mode"] == "bidirectional", field)


def speed_time(method):
    return row(lambda r: r["kind"] == "time" and r["method"] == method and r["shape"] == "regular"
               and r["L"] == 16384 and r["threads"] == 1, "seconds_median")


def matrix_detail(pattern):
    def get(doc):
        for c in doc["checks"]:
            m = re.search(pattern, c["detail"] or "")
            if m:
                return float(m.group(1))
        raise KeyError("no check detail matches %r" % pattern)

    return get


def fma_peak_gflops(doc):
    return next(r["flops_per_second"] for r in doc["rows"] if r["kind"] == "fma_peak") / 1e9


def mc_ceiling(doc):
    return next(r["ceiling"] for r in doc["rows"] if r["kind"] == "mc_engine")


def quick_run_minutes(docs):
    """The wall time, in minutes, that the quick runs' result files record (scripts/reproduce.sh's experiments)."""
    return sum(d["provenance"]["wall_seconds"] for d in docs if d["params"].get("quick")) / 60


def full_run_minutes(docs):
    """The wall time, in minutes, that the paper-sized runs' result files record (scripts/reproduce.sh --full)."""
    return sum(d["provenance"]["wall_seconds"] for d in docs) / 60


def full_look_minutes(docs):
    """The part of it that their looks took."""
    return sum(d["provenance"].get("look_seconds", 0) for d in docs) / 60


PERF = "docs/performance.md"
EXP = "docs/experiments.md"

# (document, snippet containing the number, result file, getter, formatter)
ENTRIES = []


def target_rows():
    # The Targets table of docs/performance.md: worst value (3 significant digits) and "X of Y" points within.
    rows = [
        ("| bare GEMMs ≥ 0.8 of the FMA peak | ", SPEED, "Target: the bare GEMMs at >= 0.8"),
        ("| bidirectional FAVOR ≥ 0.7 of the FMA peak | ", SPEED, "Target: bidirectional FAVOR at >= 0.7"),
        ("| causal FAVOR ≥ 0.6 of the FMA peak | ", SPEED, "Target: causal FAVOR at >= 0.6"),
        ("| FAVOR bidirectional ≤ 1.2× its four bare GEMMs | ", SPEED, "Target: FAVOR bidirectional forward"),
        ("| causal FAVOR ≤ 1.3× bidirectional, L ≥ 4096 | ", SPEED, "Target: causal FAVOR <= 1.3x"),
        ("| 2 threads ≥ 1.8× one thread, L ≥ 4096, 8 heads: FAVOR bidirectional | ", SPEED,
         "Target: 2 threads >= 1.8x faster than 1 thread at L >= 4096, 8 heads (favor_bidirectional)"),
        ("| the same, FAVOR causal | ", SPEED,
         "Target: 2 threads >= 1.8x faster than 1 thread at L >= 4096, 8 heads (favor_causal)"),
        ("| the same, exact | ", SPEED, "Target: 2 threads >= 1.8x faster than 1 thread at L >= 4096, 8 heads (exact)"),
        ("| PermuteFormer ≤ 1.1× FAVOR, bidirectional | ", SPEED,
         "Target: PermuteFormer <= 1.1x FAVOR (bidirectional)"),
        ("| PermuteFormer ≤ 1.1× FAVOR, causal | ", SPEED, "Target: PermuteFormer <= 1.1x FAVOR (causal)"),
        ("| oprf features ≤ 1.1× positive features, L ≥ 1024 | ", SPEED, "Target: oprf features"),
        ("| sderf features ≤ 1.1× positive features, L ≥ 1024 | ", SPEED, "Target: sderf features"),
        ("| exact slower than FAVOR from L = 1024 (8 heads) | ", SPEED, "Target: exact slower than FAVOR"),
        ("| bidirectional FAVOR faster than exact at L = 4096 | ", SPEED, "Target: bidirectional FAVOR at L = 4096"),
        ("| Monte Carlo `mse` sweep ≥ ½ the GEMM FLOP/s of its own products | ", SPEED,
         "Target: the Monte Carlo mse sweep"),
        ("| exact ≤ 1.0× PyTorch `scaled_dot_product_attention` (peer-bench) | ", PEER,
         "Target: exact attention <= 1.0x"),
        ("| causal exact ≤ 1.0× PyTorch `scaled_dot_product_attention` (peer-bench) | ", PEER,
         "Target: causal exact attention <= 1.0x"),
        ("| FAVOR bidirectional ≥ 5× faster than performer-pytorch (peer-bench) | ", PEER,
         "Target: FAVOR bidirectional >= 5x"),
        ("| causal FAVOR ≥ 50× faster than performer-pytorch (peer-bench) | ", PEER, "Target: causal FAVOR >= 50x"),
    ]
    for prefix, path, claim in rows:
        # One entry per number; the snippet is the whole table row, with {} where the number goes.
        ENTRIES.append((PERF, prefix + "{} | {} of {} |", path,
                        [value(claim), within(claim, 0), within(claim, 1)], [sig(3), integer, integer]))


target_rows()

ENTRIES += [
    # A newcomer's first run, timed from a clean clone (scripts/newcomer-times.sh).
    ("README.md", "built `favorlab`\nin {} minutes and wrote its first result after {} minutes; the quick run with its "
     "figures was done after {}\nminutes, and `scripts/test.sh` then took {} minutes for its {} tests", NEWCOMER,
     [lambda d: d["reproduce"]["build_seconds"] / 60, lambda d: d["reproduce"]["first_result_seconds"] / 60,
      lambda d: d["reproduce"]["seconds"] / 60, lambda d: d["test"]["seconds"] / 60, lambda d: d["test"]["tests"]],
     [fixed(1), fixed(1), fixed(1), fixed(1), integer]),
    ("README.md", "the quick experiments' result files record {} minutes of wall time", "results/*.json",
     [quick_run_minutes], [fixed(1)]),
    ("README.md", "the paper-sized result files in `results/full/` record {} minutes, {} of them looks",
     "results/full/*.json", [full_run_minutes, full_look_minutes], [fixed(0), fixed(0)]),
    # docs/performance.md, prose
    (PERF, "8 heads at L = 16384, one thread, took {} ms", SPEED,
     [lambda d: speed_time("favor_bidirectional")(d) * 1e3], [fixed(0)]),
    (PERF, "its four bare GEMMs {} ms", SPEED, [lambda d: speed_time("gemm")(d) * 1e3], [fixed(0)]),
    (PERF, "(`results/perf/speed-L16384-avx512-bced091.json`, {} s)", SPEED,
     [lambda d: d["provenance"]["wall_seconds"]], [fixed(0)]),
    (PERF, "(`results/peer-speed.json`, {} s)", PEER, [lambda d: d["provenance"]["wall_seconds"]], [fixed(0)]),
    (PERF, "is\n{} in this run", SPEED, [mc_ceiling], [fixed(3)]),
    (PERF, "In the table's speed run the peak is {} GFLOP/s", SPEED, [fma_peak_gflops], [fixed(1)]),
    (PERF, "on 8 heads the bare GEMMs reach\n{}–{} of it, bidirectional FAVOR {}–{} and causal FAVOR {}–{}", SPEED,
     regular_range("gemm") + regular_range("favor_bidirectional") + regular_range("favor_causal"), [fixed(2)] * 6),
    (PERF, "On 8 heads bidirectional FAVOR took {}–{}× its bare\nproducts", SPEED,
     regular_range("favor_bidirectional", "gemm"), [fixed(2)] * 2),
    (PERF, "and causal FAVOR {}–{}×\nbidirectional", SPEED, regular_range("favor_causal", "favor_bidirectional"),
     [fixed(2)] * 2),
    (PERF, "PermuteFormer/FAVOR rose from {}–{}\nwith Eigen's products", "results/perf/speed-L16384-avx512-919c566.json",
     combined_range([("permuteformer", "favor_bidirectional"), ("permuteformer_causal", "favor_causal")]),
     [fixed(2)] * 2),
    (PERF, "another machine) to {}–{}: the", SPEED,
     combined_range([("permuteformer", "favor_bidirectional"), ("permuteformer_causal", "favor_causal")]),
     [fixed(2)] * 2),
    (PERF, "and ran\nat {}–{} of the FMA peak on one thread to SDPA's {}–{}", PEER,
     [lambda d: min(peer_fraction("exact", L)(d) for L in (1024, 2048, 4096, 8192)),
      lambda d: max(peer_fraction("exact", L)(d) for L in (1024, 2048, 4096, 8192)),
      lambda d: min(peer_fraction("sdpa_bidirectional", L)(d) for L in (1024, 2048, 4096, 8192)),
      lambda d: max(peer_fraction("sdpa_bidirectional", L)(d) for L in (1024, 2048, 4096, 8192))], [fixed(2)] * 4),
    (PERF, "bidirectional (worst {}×)\nand causal (worst {}×)", PEER,
     [value("Target: exact attention <= 1.0x"), value("Target: causal exact attention <= 1.0x")], [sig(3)] * 2),
    (PERF, "FAVOR bidirectional was {}× (L = 1024), {}×, {}× and {}× (L = 8192) faster than", PEER,
     [all_at("Target: FAVOR bidirectional >= 5x", L) for L in (1024, 2048, 4096, 8192)], [sig(3)] * 4),
    (PERF, "and causal FAVOR {}×, {}×, {}× and {}×.", PEER,
     [all_at("Target: causal FAVOR >= 50x", L) for L in (1024, 2048, 4096, 8192)], [sig(3)] * 4),
    (PERF, "Bidirectional: {}×, {}×, {}×, {}×; causal: {}×,\n{}×, {}×, {}×.", PEER,
     [ceiling("Target: FAVOR bidirectional >= 5x", L) for L in (1024, 2048, 4096, 8192)]
     + [ceiling("Target: causal FAVOR >= 50x", L) for L in (1024, 2048, 4096, 8192)], [sig(3)] * 8),
    (PERF, "with eps = 0 they agree to\n{} (relative)", PEER,
     [value("performer-pytorch agrees with favorlab")], [sci(3)]),
    # docs/experiments.md
    (EXP, "hyperbolic {},\noprf {} (orthogonal {}, simplex {}), sderf {}, trig {}.", "results/estimators.json",
     [estimators_ratio("hyperbolic", "iid"), estimators_ratio("oprf", "iid"), estimators_ratio("oprf", "orthogonal"),
      estimators_ratio("oprf", "simplex"), estimators_ratio("sderf", "iid"), estimators_ratio("trig", "iid")],
     [fixed(3), fixed(3), fixed(3), fixed(3), sig(3), sci(3)]),
    (EXP, "positive features at m = 256 have relative error {}\n(orthogonal) and {} (iid), "
     "worse than uniform attention's {}.", "results/attention-error.json",
     [attention_error("positive", "orthogonal", "rel_error_mean"), attention_error("positive", "iid", "rel_error_mean"),
      attention_error("positive", "iid", "uniform_rel_error_mean")], [sig(3), sig(3), sig(3)]),
    (EXP, "(largest\ndeviation {} in the committed quick run)", "results/attention-matrix.json",
     [matrix_detail(r"largest \|row sum - 1\| ([0-9.e+-]+)")], [sci(3)]),
    (EXP, "trig features do\n({} in the quick run's two trig matrices, down to {}).", "results/attention-matrix.json",
     [matrix_detail(r"(\d+) negative entries in 2 trig matrices"),
      lambda d: -matrix_detail(r"smallest entry -([0-9.]+)")(d)], [integer, lambda x: "−%s" % sig(3)(-x)]),
    (EXP, "the error is {} after one layer and {} after 12", "results/layers.json",
     [row(lambda r: r["layers"] == 1, "rel_error_mean"), row(lambda r: r["layers"] == 12, "rel_error_mean")],
     [fixed(3), fixed(3)]),
    (EXP, "At n = 64 the exact mean order is {} while the\nmedian is {}", "results/perm-order.json",
     [row(lambda r: r.get("kind") == "order" and r["n"] == 64, "exact_mean_order"),
      row(lambda r: r.get("kind") == "order" and r["n"] == 64, "exact_median_order")], [fixed(2), integer]),
]


GPU = "docs/gpu.md"
GPU_SPEED = "results/gpu/speed-cuda-quick-chunk512.json"


def gpu_time(method, shape, L):
    """Device time in ms of one method at one shape and L in a `speed --backend cuda` file."""
    return lambda d: row(lambda r: r["kind"] == "time" and r["method"] == method and r["shape"] == shape
                         and r["L"] == L, "seconds_median")(d) * 1e3


def gpu_ratio_range(shape, end):
    """The least (end 0) or largest (end 1) bidirectional FAVOR / GEMM time ratio over the L of one shape."""

    def get(d):
        ratios = [gpu_time("favor_bidirectional", shape, L)(d) / gpu_time("gemm", shape, L)(d)
                  for L in sorted({r["L"] for r in d["rows"] if r["kind"] == "time" and r["shape"] == shape})]
        return (min(ratios), max(ratios))[end]

    return get


def gpu_rows():
    for chunk in (48, 64, 128, 256, 512, 1024):
        ENTRIES.append((GPU, "| %d | {} |" % chunk, "results/gpu/speed-cuda-chunk%d.json" % chunk,
                        [gpu_time("favor_causal", "regular", 65536)], [fixed(1)]))
    for prefix, claim in (
            ("| causal FAVOR ≥ 10× faster than the tiled exact kernel, L = 65536 | ", "Target: causal FAVOR >= 10x"),
            ("| bidirectional FAVOR ≤ 2× its cuBLAS products alone | ", "Target: bidirectional FAVOR within 2x"),
            ("| causal FAVOR's device memory < 3× (inputs + outputs), L = 65536 | ", "Target: causal FAVOR peak memory")):
        getters = [value(claim), within(claim, 0), within(claim, 1)]
        if "memory" in claim:  # a judged check: its statistic and the points that hold
            getters = [lambda d, c=claim, k=key: check(c)(d)[k] for key in ("statistic", "points_held", "points_total")]
        ENTRIES.append((GPU, prefix + "{} | {} of {} |", GPU_SPEED, getters, [sig(3), integer, integer]))
    ENTRIES.extend([
        (GPU, "one head at L = 512 (launch overhead;\n{}×)", GPU_SPEED,
         [lambda d: gpu_time("favor_bidirectional", "small", 512)(d) / gpu_time("gemm", "small", 512)(d)], [sig(3)]),
        (GPU, "with 8 heads every length is within it ({}× to {}×)", GPU_SPEED,
         [gpu_ratio_range("regular", 0), gpu_ratio_range("regular", 1)], [sig(3), sig(3)]),
        (GPU, "Exact attention at L = 65536 took {} ms against bidirectional FAVOR's {} ms", GPU_SPEED,
         [gpu_time("exact", "regular", 65536), gpu_time("favor_bidirectional", "regular", 65536)], [fixed(0), sig(3)]),
        (GPU, "(causal FAVOR at L = 65536: {}× float32's)", GPU_SPEED,
         [lambda d: gpu_time("favor_causal_bfloat16_inputs", "regular", 65536)(d)
          / gpu_time("favor_causal", "regular", 65536)(d)], [fixed(3)]),
    ])


gpu_rows()

# The attention experiments at full size: the GPU's float32 files, then the CPU's float64 files of the same version
# (results/gpu/cpu-float64: the results/full files the GPU run was compared with, kept beside it).
ATTENTION_EXPERIMENTS = ("attention-error", "redraw", "kernels", "layers")
GPU_VS_CPU = tuple(["results/gpu/%s-cuda.json" % e for e in ATTENTION_EXPERIMENTS] +
                   ["results/gpu/cpu-float64/%s.json" % e for e in ATTENTION_EXPERIMENTS])


def same_verdicts(part):
    """Checks whose verdict and point counts are the same on the GPU as on the CPU (part 0), and all checks (part 1)."""

    def get(docs):
        half = len(docs) // 2
        keys = ("claim", "where", "status", "points_held", "points_violated", "points_inconclusive", "points_total")
        pairs = [(g, c) for gpu, cpu in zip(docs[:half], docs[half:]) for g, c in zip(gpu["checks"], cpu["checks"])]
        if any(len(gpu["checks"]) != len(cpu["checks"]) for gpu, cpu in zip(docs[:half], docs[half:])):
            raise KeyError("the GPU and CPU files list different numbers of checks")
        return (sum(all(g.get(k) == c.get(k) for k in keys) for g, c in pairs), len(pairs))[part]

    return get


def largest_relative_difference(field):
    """The largest |GPU - CPU| / |CPU| of a row field over attention-error's rows (GPU_VS_CPU's first pair)."""

    def get(docs):
        gpu, cpu = docs[0]["rows"], docs[len(docs) // 2]["rows"]
        return max(abs(g[field] - c[field]) / abs(c[field]) for g, c in zip(gpu, cpu))

    return get


ENTRIES.extend([
    (GPU, "reach the same verdict, with the same point counts, at {} of their {} checks", GPU_VS_CPU,
     [same_verdicts(0), same_verdicts(1)], [integer, integer]),
    (GPU, "attention-error's mean relative errors differ from the CPU's by at most {} %", GPU_VS_CPU,
     [lambda d: 100 * largest_relative_difference("rel_error_mean")(d)], [fixed(2)]),
])


def get_path(doc, path):
    """path: a function of the document, or a list of keys and list indices."""
    if callable(path):
        return path(doc)
    for p in path:
        doc = doc[p]
    return doc


def committed_text(root, relative):
    """The file as committed at HEAD (None outside a git checkout or for an untracked file)."""
    try:
        done = subprocess.run(["git", "-C", root, "show", "HEAD:" + relative], capture_output=True)
    except OSError:
        return None
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def committed_names(root, pattern):
    try:
        done = subprocess.run(["git", "-C", root, "ls-tree", "-r", "--name-only", "HEAD", os.path.dirname(pattern)],
                              capture_output=True, text=True)
    except OSError:
        return []
    if done.returncode != 0:
        return []
    # As glob matches: '*' within the last path component only.
    folder, name = os.path.split(pattern)
    return sorted(n for n in done.stdout.split() if os.path.dirname(n) == folder and
                  fnmatch.fnmatchcase(os.path.basename(n), name))


def load_results(root, result, committed=False):
    """One result file's JSON; for a pattern with '*' the list of every matching file's JSON, sorted by name; for a
    tuple of names, the list of their JSON in that order. committed: as at HEAD rather than in the working tree."""
    if isinstance(result, tuple):
        return [load_results(root, r, committed) for r in result]
    if committed:
        names = committed_names(root, result) if "*" in result else [result]
        texts = [committed_text(root, n) for n in names]
        if not texts or any(t is None for t in texts):
            raise KeyError("%s is not committed" % result)
        docs = [json.loads(t) for t in texts]
        return docs if "*" in result else docs[0]
    if "*" not in result:
        with open(os.path.join(root, result), encoding="utf-8") as f:
            return json.load(f)
    docs = []
    for path in sorted(glob.glob(os.path.join(root, result))):
        with open(path, encoding="utf-8") as f:
            docs.append(json.load(f))
    if not docs:
        raise KeyError("no file matches %s" % result)
    return docs


def normalize(text):
    # Snippets may cross a line break; the documents are wrapped, so compare with every run of spaces and newlines as
    # one space.
    return re.sub(r"\s+", " ", text)


def run(doc_root, results_root):
    """The docs quote the committed results: a number passes when it is what the working tree's file says (results
    regenerated and the docs updated, before a commit) or what the committed file says (results regenerated on this
    machine by scripts/reproduce.sh, whose timings and draws are this machine's, not the ones the docs quote)."""
    failures = []
    numbers = 0
    cache = {}
    for doc, snippet, result, getters, formats in ENTRIES:
        try:
            if result not in cache:
                cache[result] = load_results(results_root, result)
            expected = [fmt(get_path(cache[result], g)) for g, fmt in zip(getters, formats)]
        except (OSError, KeyError, ValueError, StopIteration, TypeError) as e:
            failures.append("%s: cannot read the number for %r from %s: %s" % (doc, snippet, result, e))
            continue
        numbers += len(expected)
        try:
            with open(os.path.join(doc_root, doc), encoding="utf-8") as f:
                text = normalize(f.read())
        except OSError as e:
            failures.append("%s: %s" % (doc, e))
            continue
        want = normalize(snippet.format(*expected))
        if want in text:
            continue
        try:
            key = ("committed", result)
            if key not in cache:
                cache[key] = load_results(results_root, result, committed=True)
            if normalize(snippet.format(*[fmt(get_path(cache[key], g)) for g, fmt in zip(getters, formats)])) in text:
                continue
        except (OSError, KeyError, ValueError, StopIteration, TypeError):
            pass  # not committed: the working tree's file is the only one
        # Say which number differs: find the snippet with every number as a wildcard.
        parts = [re.escape(normalize(p)) for p in snippet.split("{}")]
        m = re.search(r"(\S+?)".join(parts), text)
        if m:
            for got, exp in zip(m.groups(), expected):
                if got != exp:
                    failures.append("%s: %r says %s, %s gives %s" % (doc, normalize(snippet), got, result, exp))
        else:
            failures.append("%s: snippet not found: %r (expected %r)" % (doc, normalize(snippet), want))
    return failures, numbers


def self_test(root):
    tmp = tempfile.mkdtemp(prefix="docs_numbers_")
    try:
        shutil.copy(os.path.join(root, "README.md"), tmp)
        shutil.copytree(os.path.join(root, "docs"), os.path.join(tmp, "docs"))
        failures, numbers = run(tmp, root)
        if failures:
            print("self-test: the unchanged copy fails:\n" + "\n".join(failures))
            return 1
        # Change one checked number: the first target row's worst value, in its last digit.
        path = os.path.join(tmp, PERF)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        prefix = "| FAVOR bidirectional ≤ 1.2× its four bare GEMMs | "
        i = text.index(prefix) + len(prefix)
        j = text.index(" |", i)
        old = text[i:j]
        new = old[:-1] + ("1" if old[-1] != "1" else "2")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:i] + new + text[j:])
        failures, _ = run(tmp, root)
        if not failures:
            print("self-test: changing %s to %s in %s was not detected" % (old, new, PERF))
            return 1
        print("self-test: changing %s to %s was detected (%s); %d numbers checked on the unchanged copy"
              % (old, new, failures[0], numbers))
        return 0
    finally:
        shutil.rmtree(tmp)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    root = args[0]
    if "--self-test" in argv[1:]:
        return self_test(root)
    failures, numbers = run(root, root)
    for f in failures:
        print(f)
    if failures:
        return 1
    print("docs numbers: %d checked" % numbers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
