"""favorlab's attention speed next to PyTorch and performer-pytorch, measured in one run; plus the numerical agreement
of performer-pytorch with favorlab on a shared projection W.

Run by scripts/peer-bench.sh with the interpreter of build/peer-venv (torch, performer-pytorch, numpy); favorlab
itself never needs torch. Writes a result file of favorlab's schema (favorlab.result/1, experiment "peer-speed").

Shapes: those of `favorlab speed`, regular shape: 8 heads, d = dv = 64, m = 256 random features, float32,
L = 1024, 2048, ... --max-L, on each of --threads (default 1 and 2 threads). Per L and repeat r, the entries
[favorlab, then SDPA, SDPA causal, FastAttention, FastAttention causal at each thread count] run in that order rotated
by r, so a load burst on a shared machine hits all of them alike:
  - favorlab: one `favorlab speed` subprocess at this L alone, which times every method it has (exact, FAVOR, ...;
    the list is taken from its output, never assumed) at every thread count, and its FMA peak. Its --trials must be
    >= 2: a fresh process has no warm-up, so the sample of this repeat is the faster of its two trials (its row's
    seconds_min);
  - peers: torch.nn.functional.scaled_dot_product_attention (is_causal False/True) and performer-pytorch's
    FastAttention (dim_heads 64, nb_features 256, causal False/True) on (1, 8, L, 64) tensors under
    torch.inference_mode(); one untimed warm-up per method and L, then per repeat two back-to-back calls of which
    the faster is the sample (the same best-of-two as favorlab's).
Rows report the median and minimum of the samples over repeats; ratios divide medians of the same run. The two
performer-pytorch targets also report a ceiling: performer-pytorch's time over favorlab's four bare GEMMs of the same
shapes (timed in the same favorlab process), the ratio favorlab would reach if its forward cost no more than those
products — below the target, only faster GEMMs could reach it. A peer method
whose call took more than --time-cap seconds at some L is skipped at every larger L (a "dropped" row says why).
"""
import argparse
import contextlib
import functools
import importlib.metadata
import inspect
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HEADS, D, M = 8, 64, 256
MIN_L = 1024
AGREEMENT_L = 1024
CALLS_PER_REPEAT = 2  # favorlab speed's smallest --trials; the peers get the same best of two
TIMING_NOTE = ("a timing (wall clock on a possibly shared machine), measured, never judged")


def say(line):
    print(f"peer_bench: {line}", file=sys.stderr, flush=True)


class OneLineParser(argparse.ArgumentParser):
    """argparse with a single '<name>: error: ...' line and exit status 2 on bad arguments."""
    name = "peer_bench"

    def error(self, message):
        print(f"{self.name}: error: {message}", file=sys.stderr)
        sys.exit(2)


def parse_args(argv):
    p = OneLineParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--favorlab", required=True, help="the favorlab binary")
    p.add_argument("--out", default="results/peer-speed.json", help="result file (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="max L 4096 and 3 repeats unless given")
    p.add_argument("--max-L", dest="max_l", type=int, help="largest L, a power of 2 >= 1024 (default 16384, "
                   "quick 4096)")
    p.add_argument("--repeats", type=int, help="interleaved repeats per L (default 5, quick 3)")
    p.add_argument("--time-cap", dest="time_cap", type=float, default=60.0,
                   help="skip a peer method at larger L once one call took more seconds (default %(default)s)")
    p.add_argument("--seed", type=int, default=2021, help="seed of the inputs (default %(default)s)")
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default %(default)s)")
    args = p.parse_args(argv)
    try:
        args.thread_counts = sorted({int(t) for t in args.threads.split(",")})
    except ValueError:
        p.error(f"--threads must be comma-separated integers, got {args.threads!r}")
    if not all(1 <= t <= 256 for t in args.thread_counts):
        p.error(f"--threads must be between 1 and 256, got {args.threads!r}")
    if args.max_l is None:
        args.max_l = 4096 if args.quick else 16384
    if args.repeats is None:
        args.repeats = 3 if args.quick else 5
    if args.max_l < MIN_L or args.max_l & (args.max_l - 1):
        p.error(f"--max-L must be a power of 2 >= {MIN_L}, got {args.max_l}")
    if not 1 <= args.repeats <= 1000:
        p.error(f"--repeats must be between 1 and 1000, got {args.repeats}")
    if not (math.isfinite(args.time_cap) and args.time_cap > 0):
        p.error(f"--time-cap must be a positive number of seconds, got {args.time_cap}")
    if not os.path.isfile(args.favorlab) or not os.access(args.favorlab, os.X_OK):
        p.error(f"favorlab binary not found or not executable: {args.favorlab}")
    return args


def load_average():
    """The 1-minute load average (/proc/loadavg), or None where there is none."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def median_or_none(values):
    """The median of the values that are not None, to 3 decimals (load averages); None when there are none."""
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def finite_or_none(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def run_favorlab(binary, args, what):
    """Run favorlab with args; return its stdout. A failure is an error naming what was run."""
    proc = subprocess.run([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"favorlab {what} failed (exit {proc.returncode}): {last}")
    return proc.stdout


def favorlab_speed_args(length, thread_counts):
    counts = [str(t) for t in thread_counts]
    return ["speed", "--min-L", str(length), "--max-L", str(length), "--trials", str(CALLS_PER_REPEAT),
            "--shapes", "regular", "--thread-counts", *counts, "--threads", counts[-1], "--d", str(D), "--m", str(M),
            "--no-memory", "--mc-trials", "0", "--time-cap", "1000", "--quiet", "--out", "-"]


def favorlab_speed(binary, length, thread_counts):
    """One `favorlab speed` run at this L: ({(method, threads): (seconds, load)}, FMA peak FLOP/s or None,
    its provenance)."""
    text = run_favorlab(binary, favorlab_speed_args(length, thread_counts), f"speed at L={length}")
    try:
        result = json.loads(text)
    except ValueError as e:
        raise RuntimeError(f"favorlab speed at L={length} wrote no JSON result: {e}") from e
    times, peak = {}, None
    for row in result.get("rows", []):
        if row.get("kind") == "fma_peak":
            peak = finite_or_none(row.get("flops_per_second"))
        if row.get("kind") != "time" or row.get("L") != length or row.get("threads") not in thread_counts:
            continue
        if row.get("heads") != HEADS or row.get("d") != D or row.get("m") != M:
            raise RuntimeError(f"favorlab speed reported an unexpected shape: {row}")
        seconds = finite_or_none(row.get("seconds_min"))
        if seconds is not None:
            times[(row["method"], row["threads"])] = (seconds, finite_or_none(row.get("load_average")))
    if not times:
        raise RuntimeError(f"favorlab speed at L={length} reported no time rows")
    return times, peak, result.get("provenance", {})


class Peers:
    """The PyTorch and performer-pytorch methods, built once; inputs are made per L."""

    def __init__(self, torch, performer_module):
        self.torch = torch
        self.pp = performer_module
        functional = torch.nn.functional
        with contextlib.redirect_stdout(io.StringIO()):  # FastAttention(causal=True) prints its CPU fallback note
            self.fast = {causal: performer_module.FastAttention(dim_heads=D, nb_features=M, causal=causal)
                         for causal in (False, True)}
        for attn in self.fast.values():
            attn.eval()
        # name -> (implementation, method, function of (q, k, v))
        self.methods = {
            "sdpa_bidirectional": ("pytorch", lambda q, k, v: functional.scaled_dot_product_attention(q, k, v)),
            "sdpa_causal": ("pytorch",
                            lambda q, k, v: functional.scaled_dot_product_attention(q, k, v, is_causal=True)),
            "fast_attention_bidirectional": ("performer-pytorch", self.fast[False]),
            "fast_attention_causal": ("performer-pytorch", self.fast[True]),
        }

    def inputs(self, length, seed):
        g = self.torch.Generator().manual_seed(seed + length)
        return tuple(self.torch.randn(1, HEADS, length, D, generator=g, dtype=self.torch.float32) for _ in range(3))

    def call(self, name, q, k, v, threads=1):
        """Seconds of one call of method name on that many threads."""
        self.torch.set_num_threads(threads)
        fn = self.methods[name][1]
        with self.torch.inference_mode():
            start = time.perf_counter()
            out = fn(q, k, v)
            seconds = time.perf_counter() - start
        if out.shape != v.shape:
            raise RuntimeError(f"{name} returned shape {tuple(out.shape)}, expected {tuple(v.shape)}")
        return seconds


def measure(args, peers):
    """The interleaved timing loop. Returns (lengths, samples, peaks, dropped rows, favorlab's provenance), where
    samples[(implementation, method)][(L, threads)] is the list of (seconds, load average) of each repeat, in repeat
    order, and peaks the FMA peaks (FLOP/s of one core) favorlab measured, one per repeat and L."""
    lengths = [MIN_L << i for i in range(int(math.log2(args.max_l // MIN_L)) + 1)]
    samples, peaks, dropped, provenance = {}, [], [], None
    active = list(peers.methods)
    for length in lengths:
        q, k, v = peers.inputs(length, args.seed)
        over_cap = set()
        for name in list(active):  # one untimed warm-up per method and L
            seconds = peers.call(name, q, k, v, args.thread_counts[0])
            if seconds > args.time_cap:
                over_cap.add(name)
        entries = ["favorlab"] + [(name, t) for name in active for t in args.thread_counts]
        for r in range(args.repeats):
            order = entries[r % len(entries):] + entries[:r % len(entries)]
            line = []
            for entry in order:
                if entry == "favorlab":
                    start = time.perf_counter()
                    times, peak, prov = favorlab_speed(args.favorlab, length, args.thread_counts)
                    provenance = provenance or prov
                    if peak is not None:
                        peaks.append(peak)
                    for (method, threads), point in times.items():
                        samples.setdefault(("favorlab", method), {}).setdefault((length, threads), []).append(point)
                    line.append(f"favorlab {time.perf_counter() - start:.2f} s ({len(times)} points)")
                    continue
                name, threads = entry
                load = load_average()
                calls = [peers.call(name, q, k, v, threads) for _ in range(CALLS_PER_REPEAT)]
                if max(calls) > args.time_cap:
                    over_cap.add(name)
                implementation = peers.methods[name][0]
                samples.setdefault((implementation, name), {}).setdefault((length, threads), []).append(
                    (min(calls), load))
                line.append(f"{name}@{threads} {min(calls):.4g} s")
            say(f"L={length} repeat {r + 1}/{args.repeats}: " + ", ".join(line))
        for name in active:
            if name in over_cap and length < lengths[-1]:
                why = (f"a call at L={length} took more than --time-cap {args.time_cap:g} s; not run at larger L")
                dropped.append({"kind": "dropped", "implementation": peers.methods[name][0], "method": name,
                                "last_L": length, "why": why})
                say(f"{name}: {why}")
        active = [name for name in active if name not in over_cap]
        del q, k, v
    return lengths, samples, peaks, dropped, provenance or {}


def time_rows(samples):
    rows = []
    for (implementation, method), by_point in samples.items():
        for length, threads in sorted(by_point):
            seconds = [s for s, _ in by_point[(length, threads)]]
            rows.append({"kind": "time", "implementation": implementation, "method": method, "L": length,
                         "heads": HEADS, "d": D, "dv": D, "m": M, "threads": threads,
                         "seconds_median": statistics.median(seconds), "seconds_min": min(seconds),
                         "seconds_repeats": seconds, "repeats": len(seconds),
                         "load_average": median_or_none([l for _, l in by_point[(length, threads)]])})
    return rows


# (numerator, denominator, check claim or None, target, "at least"/"at most" as the target reads)
RATIOS = [
    (("favorlab", "exact"), ("pytorch", "sdpa_bidirectional"),
     "Target: exact attention <= 1.0x PyTorch scaled_dot_product_attention", 1.0, "at most"),
    (("favorlab", "exact_causal"), ("pytorch", "sdpa_causal"),
     "Target: causal exact attention <= 1.0x PyTorch scaled_dot_product_attention (is_causal)", 1.0, "at most"),
    (("performer-pytorch", "fast_attention_bidirectional"), ("favorlab", "favor_bidirectional"),
     "Target: FAVOR bidirectional >= 5x faster than performer-pytorch", 5.0, "at least"),
    (("performer-pytorch", "fast_attention_causal"), ("favorlab", "favor_causal"),
     "Target: causal FAVOR >= 50x faster than performer-pytorch", 50.0, "at least"),
    # The ceilings of the two targets above: performer-pytorch against favorlab's four bare GEMMs of the same shapes
    # (its `gemm` method, timed in the same speed process), the ratio favorlab would reach if its forward cost no more
    # than those products. Causal FAVOR forms the same products and more, so the bidirectional GEMMs bound it too.
    (("performer-pytorch", "fast_attention_bidirectional"), ("favorlab", "gemm"), None, None, None),
    (("performer-pytorch", "fast_attention_causal"), ("favorlab", "gemm"), None, None, None),
]
CEILING_DENOMINATOR = ("favorlab", "gemm")


def ratio_name(num, den):
    return f"{num[0]} {num[1]} / {den[0]} {den[1]}"


def ratio_rows(samples, lengths, thread_counts):
    rows = []
    for num, den, _, target, sense in RATIOS:
        for length, threads in ((length, t) for t in thread_counts for length in lengths):
            a = samples.get(num, {}).get((length, threads))
            b = samples.get(den, {}).get((length, threads))
            if not a or not b:
                continue
            paired = [x[0] / y[0] for x, y in zip(a, b)]
            rows.append({"kind": "ratio", "name": ratio_name(num, den), "L": length, "threads": threads,
                         "numerator_implementation": num[0], "numerator_method": num[1],
                         "denominator_implementation": den[0], "denominator_method": den[1],
                         "value": statistics.median(s for s, _ in a) / statistics.median(s for s, _ in b),
                         "value_of_minima": min(s for s, _ in a) / min(s for s, _ in b),
                         "paired_median": statistics.median(paired),
                         "target": target, "target_sense": sense,
                         "load_average": median_or_none([l for _, l in a + b])})
    return rows


def ratio_checks(rows, simd_note):
    checks = []
    for num, den, claim, target, sense in RATIOS:
        if claim is None:
            continue
        name = ratio_name(num, den)
        points = [r for r in rows if r["kind"] == "ratio" and r["name"] == name]
        where = (f"time({num[0]} {num[1]}) / time({den[0]} {den[1]}), medians of the same run, {HEADS} heads, "
                 f"d={D}, m={M}, float32, every L and thread count measured")
        if not points:
            checks.append({"claim": claim, "where": where, "status": "inconclusive", "source": "favorlab",
                           "kind": "target", "points_total": 0, "points_held": 0, "points_violated": 0,
                           "points_inconclusive": 0, "value": None, "target": target, "detail": f"{TIMING_NOTE}; no point measured (a method was dropped, "
                                                       f"failed or is not in this favorlab)"})
            continue
        at_least = sense == "at least"
        worst = min(points, key=lambda r: r["value"]) if at_least else max(points, key=lambda r: r["value"])
        held = sum((r["value"] >= target) if at_least else (r["value"] <= target) for r in points)
        load = worst["load_average"]
        detail = (f"{held} of {len(points)} points within the target; {TIMING_NOTE}; target "
                  f"{'>=' if at_least else '<='} {target:g}; worst {worst['value']:.3g} at {point_name(worst)}"
                  f" (load {'unknown' if load is None else f'{load:.2f}'}); all: "
                  + ", ".join(f"{point_name(r)}={r['value']:.3g}" for r in points) + f"; {simd_note}")
        check = {"claim": claim, "where": where, "status": "measured", "source": "favorlab", "kind": "target",
                 "value": worst["value"], "target": target, "detail": detail}
        if num[0] == "performer-pytorch":
            ceiling_note, ceiling = ceiling_of(rows, num, target)
            check["detail"] += f"; {ceiling_note}"
            check["ceiling"] = ceiling
        checks.append(check)
    return checks


def point_name(row):
    return f"L={row['L']}/threads={row['threads']}"


def ceiling_of(rows, num, target):
    """The ceiling of a performer-pytorch target: (a sentence for the detail, [{"L", "value"}] or None)."""
    name = ratio_name(num, CEILING_DENOMINATOR)
    points = [r for r in rows if r["kind"] == "ratio" and r["name"] == name]
    if not points:
        return "ceiling not measured (favorlab's bare GEMMs were not timed)", None
    reachable = sum(r["value"] >= target for r in points)
    note = ("ceiling, time(performer-pytorch) / time(favorlab's four bare GEMMs of the same shapes), the ratio if "
            "favorlab's forward cost no more than its products: "
            + ", ".join(f"{point_name(r)}={r['value']:.3g}" for r in points)
            + f" (at or above the target at {reachable} of {len(points)})")
    return note, [{"L": r["L"], "threads": r["threads"], "value": r["value"]} for r in points]


# (implementation, method, FLOPs counted): FAVOR's four products for the linear methods, Q Kᵀ and P V for exact.
FRACTIONS = [("favorlab", "gemm", "products"), ("favorlab", "favor_bidirectional", "products"),
             ("favorlab", "favor_causal", "products"), ("favorlab", "exact", "exact"),
             ("pytorch", "sdpa_bidirectional", "exact")]


def flops_of(kind, length):
    if kind == "products":  # per head 2·(2·L·d·m + 2·L·m·(dv + 1)), as favorlab's speed counts them
        return HEADS * 2 * (2 * length * D * M + 2 * length * M * (D + 1))
    return HEADS * 4 * length * length * D


def fraction_rows(samples, lengths, thread_counts, peak):
    """FLOP/s over (threads × one core's FMA peak, as favorlab measured it), medians of the run."""
    rows = []
    if peak is None:
        return rows
    for implementation, method, kind in FRACTIONS:
        for length, threads in ((length, t) for t in thread_counts for length in lengths):
            points = samples.get((implementation, method), {}).get((length, threads))
            if not points:
                continue
            seconds = statistics.median(s for s, _ in points)
            rows.append({"kind": "fraction_of_fma_peak", "implementation": implementation, "method": method,
                         "L": length, "threads": threads, "flops": flops_of(kind, length), "flops_counted": kind,
                         "value": flops_of(kind, length) / seconds / (threads * peak)})
    return rows


def ratio_table(rows, thread_counts, lengths):
    """The ratios and fractions of the run as a plain-text table (stdout of scripts/peer-bench.sh)."""
    def value(kind, key, length, threads):
        for r in rows:
            if r["kind"] == kind and r.get("name", r.get("method")) == key and r["L"] == length and \
                    r["threads"] == threads:
                return f"{r['value']:.3g}"
        return "-"
    columns = [("ratio", ratio_name(("favorlab", "exact"), ("pytorch", "sdpa_bidirectional")), "exact/SDPA"),
               ("ratio", ratio_name(("favorlab", "exact_causal"), ("pytorch", "sdpa_causal")), "causal exact/SDPA"),
               ("ratio", ratio_name(("performer-pytorch", "fast_attention_bidirectional"),
                                    ("favorlab", "favor_bidirectional")), "performer/FAVOR"),
               ("ratio", ratio_name(("performer-pytorch", "fast_attention_causal"), ("favorlab", "favor_causal")),
                "performer/causal FAVOR"),
               ("fraction_of_fma_peak", "gemm", "GEMMs/peak"),
               ("fraction_of_fma_peak", "favor_bidirectional", "FAVOR/peak"),
               ("fraction_of_fma_peak", "favor_causal", "causal/peak"),
               ("fraction_of_fma_peak", "exact", "exact/peak"),
               ("fraction_of_fma_peak", "sdpa_bidirectional", "SDPA/peak")]
    table = [["threads", "L"] + [title for _, _, title in columns]]
    for threads in thread_counts:
        for length in lengths:
            table.append([str(threads), str(length)] + [value(k, key, length, threads) for k, key, _ in columns])
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in table]
    return ("peer-speed: medians of one interleaved run (ratios: time over time; fractions: FLOP/s over threads x "
            "one core's FMA peak)\n" + "\n".join(lines))


def relative_error(x, reference):
    """||x - reference||_F / ||reference||_F in float64; None when either holds a NaN or an infinity."""
    import numpy as np
    x, reference = np.asarray(x, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if x.shape != reference.shape:
        raise RuntimeError(f"outputs of shapes {x.shape} and {reference.shape} cannot be compared")
    return finite_or_none(float(np.linalg.norm(x - reference) / np.linalg.norm(reference)))


def agreement(args, torch, pp):
    """performer-pytorch's FastAttention on favorlab's own projection W: agreement rows and the check."""
    import numpy as np
    module = pp.performer_pytorch
    # The library's defaults, read from its source rather than assumed: softmax_kernel adds eps to every feature
    # after its stabilizer (queries: exp(. - row max), keys: exp(. - max over the head)), and the CPU causal path
    # (causal_linear_attention_noncuda) adds another eps to the running key sums in the denominator.
    kernel_eps = inspect.signature(module.softmax_kernel).parameters["eps"].default
    denominator_eps = inspect.signature(module.causal_linear_attention_noncuda).parameters["eps"].default
    rng = np.random.default_rng(args.seed)
    q, k, v = (rng.standard_normal((HEADS, AGREEMENT_L, D)).astype(np.float32) for _ in range(3))
    outputs = {}
    with tempfile.TemporaryDirectory(prefix="peer-bench-") as tmp:
        path = functools.partial(os.path.join, tmp)
        for name, array in (("q", q), ("k", k), ("v", v)):
            np.save(path(f"{name}.npy"), array)
        common = ["attend", "--q", path("q.npy"), "--k", path("k.npy"), "--v", path("v.npy"), "--threads", "1",
                  "--quiet"]
        run_favorlab(args.favorlab, common + ["--mechanism", "favor", "--features", "positive", "--m", str(M),
                                              "--save-w", path("w.npy"), "--out", path("favor.npy")],
                     "attend (favor)")
        run_favorlab(args.favorlab, common + ["--mechanism", "favor", "--features", "positive", "--m", str(M),
                                              "--w", path("w.npy"), "--causal", "--out", path("favor_causal.npy")],
                     "attend (favor, causal)")
        run_favorlab(args.favorlab, common + ["--mechanism", "exact", "--out", path("exact.npy")], "attend (exact)")
        run_favorlab(args.favorlab, common + ["--mechanism", "exact", "--causal", "--out", path("exact_causal.npy")],
                     "attend (exact, causal)")
        try:
            w = np.load(path("w.npy"))
            for name in ("favor", "favor_causal", "exact", "exact_causal"):
                outputs[name] = np.load(path(f"{name}.npy"))
        except (OSError, ValueError) as e:
            raise RuntimeError(f"favorlab attend left no readable output: {e}") from e
    if w.shape != (M, D):
        raise RuntimeError(f"favorlab --save-w wrote W of shape {w.shape}, expected {(M, D)}")

    tq, tk, tv = (torch.from_numpy(x).unsqueeze(0) for x in (q, k, v))

    def performer(causal, eps, den_eps):
        with contextlib.redirect_stdout(io.StringIO()):
            attn = module.FastAttention(dim_heads=D, nb_features=M, causal=causal)
        with torch.no_grad():
            attn.projection_matrix.copy_(torch.from_numpy(w).to(torch.float32))  # rows are the omega_i
        if causal and den_eps != denominator_eps:
            if attn.causal_linear_fn is not module.causal_linear_attention_noncuda:
                raise RuntimeError("performer-pytorch's causal path is not causal_linear_attention_noncuda")
            attn.causal_linear_fn = functools.partial(module.causal_linear_attention_noncuda, eps=den_eps)
        original = module.softmax_kernel
        if eps != kernel_eps:  # FastAttention.forward looks softmax_kernel up in the module at each call
            module.softmax_kernel = functools.partial(original, eps=eps)
        try:
            with torch.inference_mode():
                return attn(tq, tk, tv).squeeze(0).numpy()
        finally:
            module.softmax_kernel = original

    variants = [(False, kernel_eps, None), (False, 0.0, None),
                (True, kernel_eps, denominator_eps), (True, 0.0, denominator_eps), (True, 0.0, 0.0)]
    rows = []
    base = {"kind": "agreement", "L": AGREEMENT_L, "heads": HEADS, "d": D, "m": M, "precision": "float32",
            "inputs": f"Q, K, V ~ N(0, 1), numpy seed {args.seed}", "projection": "favorlab's W (--save-w), shared"}
    for causal in (False, True):
        favor = outputs["favor_causal" if causal else "favor"]
        exact = outputs["exact_causal" if causal else "exact"]
        rows.append({**base, "implementation": "favorlab", "method": "favor", "causal": causal,
                     "reference": "exact softmax attention (favorlab attend --mechanism exact)",
                     "eps": None, "denominator_eps": None, "relative_error": relative_error(favor, exact)})
    errors = {}
    for causal, eps, den_eps in variants:
        out = performer(causal, eps, den_eps)
        favor = outputs["favor_causal" if causal else "favor"]
        exact = outputs["exact_causal" if causal else "exact"]
        for reference, ref_name in ((favor, "favorlab favor, same W"),
                                    (exact, "exact softmax attention (favorlab attend --mechanism exact)")):
            err = relative_error(out, reference)
            rows.append({**base, "implementation": "performer-pytorch", "method": "FastAttention", "causal": causal,
                         "reference": ref_name, "eps": eps, "denominator_eps": den_eps, "relative_error": err})
            if reference is favor:
                errors[(causal, eps, den_eps)] = err
    zero = {False: errors[(False, 0.0, None)], True: errors[(True, 0.0, 0.0)]}
    default = {False: errors[(False, kernel_eps, None)], True: errors[(True, kernel_eps, denominator_eps)]}
    fmt = lambda x: "non-finite output" if x is None else f"{x:.3g}"  # noqa: E731
    say(f"agreement at L={AGREEMENT_L}: performer-pytorch vs favorlab, relative error: bidirectional "
        f"{fmt(default[False])} (eps {kernel_eps:g}), {fmt(zero[False])} (eps 0); causal {fmt(default[True])} "
        f"(library eps), {fmt(zero[True])} (eps 0)")
    finite = None not in zero.values()
    check = {"claim": "performer-pytorch agrees with favorlab on a shared W (eps = 0)",
             "where": f"||out - favorlab|| / ||favorlab|| (Frobenius), L={AGREEMENT_L}, {HEADS} heads, d={D}, m={M}, "
                      f"float32, positive features, W drawn by favorlab and loaded into FastAttention's "
                      f"projection_matrix, eps = 0 (kernel and causal denominator); worse of bidirectional and causal",
             "status": "measured" if finite else "inconclusive", "source": "favorlab", "kind": "control",
             "value": max(zero.values()) if finite else None,
             "detail": (f"bidirectional {fmt(zero[False])}, causal {fmt(zero[True])} with eps = 0; with the library's "
                        f"defaults (softmax_kernel eps {kernel_eps:g} added after the stabilizer; causal denominator "
                        f"eps {denominator_eps:g}): bidirectional {fmt(default[False])}, causal {fmt(default[True])}; "
                        f"a measurement, not a verdict")}
    info = {"L": AGREEMENT_L, "seed": args.seed, "library_kernel_eps": kernel_eps,
            "library_causal_denominator_eps": denominator_eps}
    return rows, check, info


def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def write_atomically(result, out):
    directory = os.path.dirname(os.path.abspath(out))
    os.makedirs(directory, exist_ok=True)
    text = json.dumps(result, indent=1, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(out)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv=None):
    args = parse_args(argv)
    args.favorlab = os.path.abspath(args.favorlab)
    started, utc = time.perf_counter(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = load_average()
    with warnings.catch_warnings():  # performer-pytorch 1.1.4 imports distutils and torch.cuda.amp
        warnings.simplefilter("ignore")
        import torch
        import performer_pytorch
    torch.set_num_threads(1)
    with contextlib.suppress(RuntimeError):  # refused once the inter-op pool exists
        torch.set_num_interop_threads(1)
    say(f"torch {torch.__version__} (CPU capability {torch.backends.cpu.get_cpu_capability()}), performer-pytorch "
        f"{version('performer-pytorch')}, favorlab {args.favorlab}")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agreement_rows, agreement_check, agreement_info = agreement(args, torch, performer_pytorch)
        peers = Peers(torch, performer_pytorch)
        lengths, samples, peaks, dropped, favorlab_provenance = measure(args, peers)

    peak = statistics.median(peaks) if peaks else None
    rows = time_rows(samples) + dropped
    rows += ratio_rows(samples, lengths, args.thread_counts)
    rows += fraction_rows(samples, lengths, args.thread_counts, peak)
    # instruction_sets (the compiler's targets) where favorlab records it: Eigen's own string says "AVX" for AVX2 too.
    isa = favorlab_provenance.get("instruction_sets") or favorlab_provenance.get("eigen_simd", "unknown")
    simd_note = f"favorlab built for {isa}, torch's CPU capability {torch.backends.cpu.get_cpu_capability()}"
    checks = ratio_checks(rows, simd_note) + [agreement_check]
    rows += agreement_rows
    favorlab_methods = sorted({m for (i, m) in samples if i == "favorlab"})
    result = {
        "schema": "favorlab.result/1",
        "experiment": "peer-speed",
        "params": {
            "min_L": MIN_L, "max_L": args.max_l, "lengths": lengths, "heads": HEADS, "d": D, "dv": D, "m": M,
            "features": "positive", "precision": "float32", "threads": args.thread_counts, "repeats": args.repeats,
            "quick": args.quick, "time_cap": args.time_cap, "seed": args.seed, "calls_per_repeat": CALLS_PER_REPEAT,
            "timing": ("wall clock; per L and repeat r the entries favorlab (every thread count in one process), then "
                       "SDPA, SDPA causal, FastAttention, FastAttention causal at each thread count run in that order "
                       "rotated by r; each repeat's sample is the faster of "
                       "two back-to-back calls (favorlab: its speed experiment with --trials 2, seconds_min; "
                       "peers: after one untimed warm-up per method and L); rows give the median and minimum over "
                       "repeats, ratios divide medians"),
            "favorlab_binary": args.favorlab,
            "favorlab_command": "FAVORLAB " + " ".join(favorlab_speed_args("L", args.thread_counts)),
            "fma_peak_flops_per_second": peak,
            "fma_peak": "one core's, the median of favorlab speed's fma_peak rows of this run (12 multiply-add "
                        "chains on its widest float packet)",
            "favorlab_methods": favorlab_methods,
            "peer_methods": {
                "sdpa_bidirectional": "torch.nn.functional.scaled_dot_product_attention(q, k, v)",
                "sdpa_causal": "torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)",
                "fast_attention_bidirectional": "performer_pytorch.FastAttention(dim_heads=64, nb_features=256, "
                                                "causal=False), library defaults",
                "fast_attention_causal": "performer_pytorch.FastAttention(dim_heads=64, nb_features=256, "
                                         "causal=True): on CPU its pure-PyTorch causal_linear_attention_noncuda",
            },
            "tensor_shape": [1, HEADS, "L", D],
            "agreement": agreement_info,
        },
        "provenance": {
            "utc": utc,
            "wall_seconds": time.perf_counter() - started,
            "load_average_start": load_start,
            "load_average_end": load_average(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "torch_threads": args.thread_counts,
            "performer_pytorch": version("performer-pytorch"),
            "local_attention": version("local-attention"),
            "einops": version("einops"),
            "numpy": version("numpy"),
            "triton_installed": version("triton") is not None,
            "machine": platform.machine(),
            "favorlab": favorlab_provenance,
        },
        "rows": rows,
        "checks": checks,
    }
    write_atomically(result, args.out)
    say(f"wrote {args.out}")
    print(ratio_table(rows, args.thread_counts, lengths), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError) as e:
        print(f"peer_bench: error: {e}", file=sys.stderr)
        sys.exit(1)
