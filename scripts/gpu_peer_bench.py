"""favorlab's attention on one GPU next to the libraries users run there, measured in one interleaved run; plus the
numerical agreement of flash-linear-attention with favorlab when both are given the same features.

Run by scripts/gpu-peer-bench.sh on a machine with an NVIDIA GPU and PyTorch; favorlab itself never needs torch.
Writes a result file of favorlab's schema (favorlab.result/1, experiment "gpu-peer-speed").

Shapes: those of `favorlab speed --backend cuda`: regular (8 heads) and small (1 head), d = dv = 64, m = 256 random
features, L = 1024, 2048, ... --max-L. Entries, every one timed on the device with CUDA events:
  - favorlab: one `favorlab speed --backend cuda` process per repeat over every L and both shapes, which times every
    device method it has (exact and causal exact in float32, and in bfloat16 through cuDNN where the build has it;
    FAVOR bidirectional and causal with float32, tf32 and bfloat16 products; its bare products) and reports the
    faster of two trials (seconds_min);
  - PyTorch's scaled_dot_product_attention with one backend forced at a time (flash, memory-efficient, cuDNN), in
    bfloat16 and float32, bidirectional and causal; a backend that refuses a dtype or shape is recorded as such;
  - flash-linear-attention's chunked causal linear attention (chunk_linear_attn, normalize=True, scale 1) fed
    favorlab's positive features φ(Q), φ(K) of the same shape (m = 256 columns), precomputed (so it times the
    products alone, which favours it), in bfloat16 and float32;
  - performer-pytorch's FastAttention (dim_heads 64, nb_features 256), bidirectional and causal, float32.
Per repeat r favorlab's process runs first when r is even and last when r is odd, and the peers' entries at each L
run in an order rotated by r, so a drift of the device's clocks hits all of them alike. Peers get one untimed warm-up
per entry and L, then the faster of two back-to-back calls per repeat. A peer entry that took longer than --time-cap
seconds at some L is skipped at every larger L (a "dropped" row says why).
Checks are timings: measured, never judged. Crossover rows give, per shape and mode, the first L from which
favorlab's fastest FAVOR beats the fastest exact kernel of any library and dtype at that L and every larger one.
"""
import inspect
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_bench import OneLineParser, finite_or_none, run_favorlab, version, write_atomically  # noqa: E402

D, M = 64, 256
SHAPES = {"regular": 8, "small": 1}
MIN_L = 1024
AGREEMENT_L = 1024
CALLS_PER_REPEAT = 2
TIMING_NOTE = "a timing (device time from CUDA events), measured, never judged"
SDPA_BACKENDS = ("flash", "efficient", "cudnn")
MODES = ("bidirectional", "causal")


def say(line):
    print(f"gpu_peer_bench: {line}", file=sys.stderr, flush=True)


class Parser(OneLineParser):
    name = "gpu_peer_bench"


def parse_args(argv):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("favorlab", help="the favorlab binary (a build with the CUDA backend)")
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true", help="L up to 16384 and 3 repeats")
    p.add_argument("--max-L", dest="max_l", type=int)
    p.add_argument("--repeats", type=int)
    p.add_argument("--time-cap", dest="time_cap", type=float, default=5.0)
    p.add_argument("--chunk", type=int, help="favorlab's causal chunk (default: favorlab's own for cuda)")
    args = p.parse_args(argv)
    args.max_l = args.max_l or (16384 if args.quick else 65536)
    args.repeats = args.repeats or (3 if args.quick else 5)
    if args.max_l < MIN_L or args.max_l & (args.max_l - 1):
        p.error(f"--max-L must be a power of 2 >= {MIN_L}, got {args.max_l}")
    if not 1 <= args.repeats <= 100:
        p.error(f"--repeats must be between 1 and 100, got {args.repeats}")
    if not (math.isfinite(args.time_cap) and args.time_cap > 0):
        p.error(f"--time-cap must be a positive number of seconds, got {args.time_cap}")
    if args.chunk is not None and args.chunk < 1:
        p.error(f"--chunk must be positive, got {args.chunk}")
    return args


def lengths_up_to(max_l):
    out, length = [], MIN_L
    while length <= max_l:
        out.append(length)
        length *= 2
    return out


# ---- favorlab ---------------------------------------------------------------------------------------------------

def favorlab_args(max_l, chunk):
    args = ["speed", "--backend", "cuda", "--shapes", ",".join(SHAPES), "--min-L", str(MIN_L), "--max-L", str(max_l),
            "--trials", str(CALLS_PER_REPEAT), "--d", str(D), "--m", str(M), "--no-memory", "--time-cap", "1000",
            "--quiet", "--out", "-"]
    return args + (["--chunk", str(chunk)] if chunk else [])


def favorlab_entry(method):
    """(mode, dtype, class) of a favorlab speed method: class exact, favor or floor."""
    mode = "causal" if "causal" in method else "bidirectional"
    products = "bfloat16" if method.endswith("_bfloat16") else "tf32" if method.endswith("_tf32") else "float32"
    if method.startswith("exact"):
        return mode, products, "exact"
    if method.startswith(("favor_bidirectional", "favor_causal")):
        return mode, products, "favor"  # positive features; oprf and sderf are favorlab's own comparison
    return mode, products, "floor" if method.startswith(("gemm", "identity")) else "other"


def parse_favorlab_speed(text):
    """{(method, shape, L): seconds} from one `favorlab speed --backend cuda` result, and its provenance."""
    try:
        result = json.loads(text)
    except ValueError as e:
        raise RuntimeError(f"favorlab speed wrote no JSON result: {e}") from e
    times = {}
    for row in result.get("rows", []):
        if row.get("kind") != "time" or row.get("shape") not in SHAPES or row["method"].endswith("_inputs"):
            continue  # the 16-bit input rows are favorlab's own comparison, not a peer's
        if row.get("heads") != SHAPES[row["shape"]] or row.get("d") != D or row.get("m") != M:
            raise RuntimeError(f"favorlab speed reported an unexpected shape: {row}")
        seconds = finite_or_none(row.get("seconds_min"))
        if seconds is not None:
            times[(row["method"], row["shape"], row["L"])] = seconds
    if not times:
        raise RuntimeError("favorlab speed reported no time rows")
    return times, result.get("provenance", {})


# ---- the peers --------------------------------------------------------------------------------------------------

class Peers:
    """The PyTorch, flash-linear-attention and performer-pytorch entries; inputs are made per shape and L."""

    def __init__(self, torch, fla_module, performer_module):
        self.torch, self.fla, self.pp = torch, fla_module, performer_module
        from torch.nn.attention import SDPBackend, sdpa_kernel
        self.sdpa_kernel = sdpa_kernel
        self.backends = {name: getattr(SDPBackend, attr) for name, attr in
                         (("flash", "FLASH_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION"),
                          ("cudnn", "CUDNN_ATTENTION")) if hasattr(SDPBackend, attr)}
        gen = torch.Generator(device="cpu").manual_seed(2021)
        self.w = torch.randn(M, D, generator=gen).cuda()  # timing only: the values do not change the work
        self.fast = {}
        if performer_module is not None:
            for causal in (False, True):
                self.fast[causal] = performer_module.FastAttention(dim_heads=D, nb_features=M, causal=causal).cuda()

    def entries(self):
        """[(implementation, method, dtype)] in the base order the repeats rotate."""
        out = [("pytorch", f"sdpa_{b}_{mode}", dtype) for dtype in ("bfloat16", "float32") for b in self.backends
               for mode in MODES]
        if self.fla is not None:
            out += [("flash-linear-attention", "chunk_linear_attn_causal", dtype) for dtype in ("bfloat16", "float32")]
        if self.pp is not None:
            out += [("performer-pytorch", f"fast_attention_{mode}", "float32") for mode in MODES]
        return out

    def inputs(self, heads, length):
        t = self.torch
        gen = t.Generator(device="cpu").manual_seed(length * 16 + heads)
        q, k, v = (t.randn(1, heads, length, D, generator=gen).cuda() for _ in range(3))
        feats = {}
        if self.fla is not None:
            fq, fk = favor_features(t, q, k, self.w)
            for dtype in ("bfloat16", "float32"):
                cast = getattr(t, dtype)
                feats[dtype] = tuple(x.transpose(1, 2).contiguous().to(cast) for x in (fq, fk, v))
        return {"q": q, "k": k, "v": v, "features": feats}

    def call(self, entry, data):
        """A zero-argument function running the entry on these inputs."""
        t = self.torch
        implementation, method, dtype = entry
        if implementation == "pytorch":
            backend, causal = method.split("_")[1], method.endswith("_causal")
            q, k, v = (data[x].to(getattr(t, dtype)) for x in "qkv")
            functional = t.nn.functional

            def run():
                with self.sdpa_kernel(self.backends[backend]):
                    return functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return run
        if implementation == "flash-linear-attention":
            fq, fk, v = data["features"][dtype]
            return lambda: fla_causal(self.fla, fq, fk, v)
        causal = method.endswith("_causal")
        return lambda: self.fast[causal](data["q"], data["k"], data["v"])


def favor_features(t, q, k, w):
    """favorlab's positive features (docs/theory.md): exp(W x̃ − ‖x̃‖²/2 − c)/√m with x̃ = d^{-1/4} x; queries
    stabilized per row, keys by one constant per head (the ratio is unchanged by either)."""
    scale = D ** -0.25

    def logs(x):
        xs = x * scale
        return xs @ w.T - (xs * xs).sum(-1, keepdim=True) / 2
    lq, lk = logs(q), logs(k)
    fq = t.exp(lq - lq.amax(-1, keepdim=True)) / math.sqrt(M)
    fk = t.exp(lk - lk.amax(dim=(-2, -1), keepdim=True)) / math.sqrt(M)
    return fq, fk


def fla_causal(fla, fq, fk, v):
    """flash-linear-attention's chunked causal linear attention on [B, T, H, K] features, renormalized, scale 1."""
    kwargs = {"scale": 1.0, "normalize": True}
    if "head_first" in inspect.signature(fla.chunk_linear_attn).parameters:
        kwargs["head_first"] = False
    out = fla.chunk_linear_attn(fq, fk, v, **kwargs)
    return out[0] if isinstance(out, tuple) else out


def device_seconds(torch, fn):
    """The faster of CALLS_PER_REPEAT back-to-back calls, each between two CUDA events on the current stream."""
    best = math.inf
    for _ in range(CALLS_PER_REPEAT):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return best


# ---- the interleaved run ----------------------------------------------------------------------------------------

def measure(args, torch, peers):
    """samples {(implementation, method, dtype, shape, L): [seconds per repeat]}, dropped and refused rows, and
    favorlab's provenance."""
    lengths = lengths_up_to(args.max_l)
    samples, notes, provenance = {}, {}, {}
    capped = {}
    for r in range(args.repeats):
        def run_favorlab_once():
            nonlocal provenance
            say(f"repeat {r + 1}/{args.repeats}: favorlab speed --backend cuda, L = {MIN_L} ... {args.max_l}")
            times, provenance = parse_favorlab_speed(
                run_favorlab(args.favorlab, favorlab_args(args.max_l, args.chunk), "speed --backend cuda"))
            for (method, shape, length), seconds in times.items():
                samples.setdefault(("favorlab", method, "float32", shape, length), []).append(seconds)
        if r % 2 == 0:
            run_favorlab_once()
        base = peers.entries()
        order = base[r % len(base):] + base[:r % len(base)] if base else []
        for shape, heads in SHAPES.items():
            for length in lengths:
                say(f"repeat {r + 1}/{args.repeats}: peers, {shape} shape, L = {length}")
                data = peers.inputs(heads, length)
                for entry in order:
                    key = (*entry, shape, length)
                    if (entry, shape) in capped or key in notes:
                        continue
                    try:
                        fn = peers.call(entry, data)
                        if r == 0:
                            fn()  # warm-up: kernels chosen, compiled and loaded
                        seconds = device_seconds(torch, fn)
                    except Exception as e:  # noqa: BLE001 — a peer's refusal of a dtype or shape is a row, not the end
                        notes[key] = f"refused: {str(e).splitlines()[0][:200] if str(e) else type(e).__name__}"
                        continue
                    samples.setdefault(key, []).append(seconds)
                    if seconds > args.time_cap:
                        capped[(entry, shape)] = (length, seconds)
                del data
                torch.cuda.empty_cache()
        if r % 2 == 1:
            run_favorlab_once()
    dropped = [{"kind": "dropped", "implementation": e[0], "method": e[1], "dtype": e[2], "shape": shape,
                "after_L": length, "seconds": seconds,
                "why": f"one call took {seconds:.3g} s > --time-cap {args.time_cap:g} s: not run at larger L"}
               for (e, shape), (length, seconds) in capped.items()]
    refused = [{"kind": "refused", "implementation": k[0], "method": k[1], "dtype": k[2], "shape": k[3], "L": k[4],
                "why": why} for k, why in notes.items()]
    return lengths, samples, dropped + refused, provenance


# ---- rows, crossovers, checks (pure: tested without a GPU by tests/gpu_peer_bench_check.py) ------------------------

def entry_kind(implementation, method):
    """(mode, class) of any entry: class exact (softmax attention), favor (favorlab's FAVOR), linear (a peer's linear
    attention) or floor (favorlab's bare products or copy)."""
    if implementation == "favorlab":
        mode, _, kind = favorlab_entry(method)
        return mode, kind
    mode = "causal" if method.endswith("_causal") else "bidirectional"
    return mode, "exact" if implementation == "pytorch" else "linear"


def time_rows(samples):
    rows = []
    for (implementation, method, dtype, shape, length), seconds in sorted(samples.items()):
        mode, kind = entry_kind(implementation, method)
        rows.append({"kind": "time", "implementation": implementation, "method": method, "dtype": dtype,
                     "products": favorlab_entry(method)[1] if implementation == "favorlab" else dtype,
                     "mode": mode, "class": kind, "shape": shape, "heads": SHAPES[shape], "L": length, "d": D,
                     "dv": D, "m": M, "seconds_median": statistics.median(seconds), "seconds_min": min(seconds),
                     "seconds_repeats": seconds, "repeats": len(seconds)})
    return rows


def fastest(rows, shape, length, mode, kinds, implementations=None, products=None):
    """The time row of least median among those of this shape, L and mode whose class is in kinds (and whose
    implementation is in implementations, whose products are in that format, where given)."""
    candidates = [r for r in rows if r["kind"] == "time" and r["shape"] == shape and r["L"] == length and
                  r["mode"] == mode and r["class"] in kinds and
                  (implementations is None or r["implementation"] in implementations) and
                  (products is None or r["products"] == products)]
    return min(candidates, key=lambda r: r["seconds_median"]) if candidates else None


def label(row):
    return f"{row['implementation']} {row['method']} ({row['products']})"


def crossover_rows(rows, lengths):
    """Per shape, mode and exact field (favorlab's own; any library): the first L from which favorlab's fastest FAVOR
    is faster than the fastest exact kernel at that L and at every larger L measured (null: never, up to the largest
    L where both were measured)."""
    out = []
    for shape in SHAPES:
        for mode in MODES:
            for field, implementations in (("favorlab", {"favorlab"}), ("any library", None)):
                points = []
                for length in lengths:
                    favor = fastest(rows, shape, length, mode, {"favor"}, {"favorlab"})
                    exact = fastest(rows, shape, length, mode, {"exact"}, implementations)
                    if favor and exact:
                        points.append({"L": length, "favor": label(favor), "exact": label(exact),
                                       "ratio": favor["seconds_median"] / exact["seconds_median"]})
                crossover = None
                for p in reversed(points):
                    if p["ratio"] >= 1:
                        break
                    crossover = p["L"]
                out.append({"kind": "crossover", "shape": shape, "heads": SHAPES[shape], "mode": mode,
                            "exact_from": field, "crossover_L": crossover, "points": points,
                            "largest_L": points[-1]["L"] if points else None,
                            "note": ("no L measured for both" if not points else
                                     f"FAVOR never faster up to L = {points[-1]['L']}" if crossover is None else
                                     f"FAVOR faster from L = {crossover} on")})
    return out


def ratio_points(rows, num, den, shapes, min_l=0):
    """[(shape, L, time(num)/time(den))] for the time rows matching num and den (dicts of field: value)."""
    def pick(match, shape, length):
        found = [r for r in rows if r["kind"] == "time" and r["shape"] == shape and r["L"] == length and
                 all(r.get(k) == v for k, v in match.items())]
        return min(found, key=lambda r: r["seconds_median"]) if found else None
    points = []
    lengths = sorted({r["L"] for r in rows if r["kind"] == "time" and r["L"] >= min_l})
    for shape in shapes:
        for length in lengths:
            a, b = pick(num, shape, length), pick(den, shape, length)
            if a and b:
                points.append((shape, length, a["seconds_median"] / b["seconds_median"]))
    return points


def timing_check(claim, where, points, target, extra=""):
    if not points:
        return {"claim": claim, "where": where, "status": "inconclusive", "source": "favorlab", "kind": "target",
                "value": None, "target": target, "detail": f"{TIMING_NOTE}; no point measured{extra}"}
    worst = max(points, key=lambda p: p[2])
    held = sum(p[2] <= target for p in points)
    return {"claim": claim, "where": where, "status": "measured", "source": "favorlab", "kind": "target",
            "value": worst[2], "target": target,
            "detail": f"{held} of {len(points)} points within the target; {TIMING_NOTE}; worst {worst[2]:.3g} at "
                      f"{worst[0]}/L={worst[1]}; all: " + ", ".join(f"{s}/L={n}={v:.3g}" for s, n, v in points)
                      + extra}


def checks_of(rows):
    """The targets of the GPU work as measured checks."""
    checks = []
    lengths = sorted({r["L"] for r in rows if r["kind"] == "time" and r["L"] >= 4096})
    for mode in MODES:
        # Each of favorlab's exact paths against SDPA's fastest backend in its own format: the tiled kernel in
        # float32, cuDNN's fused attention in bfloat16.
        points = []
        for products in ("float32", "bfloat16"):
            for shape in SHAPES:
                for length in lengths:
                    ours = fastest(rows, shape, length, mode, {"exact"}, {"favorlab"}, products)
                    theirs = fastest(rows, shape, length, mode, {"exact"}, {"pytorch"}, products)
                    if ours and theirs:
                        ratio = ours["seconds_median"] / theirs["seconds_median"]
                        points.append((f"{shape}/{products}", length, ratio))
        checks.append(timing_check(
            f"Target: {mode} exact attention <= 1.15x PyTorch SDPA's fastest backend, same dtype, L >= 4096",
            "time(favorlab's exact path in a format) / time(the fastest SDPA backend in that format), both shapes, "
            "float32 and bfloat16", points, 1.15))
    checks.append(timing_check(
        "Target: causal FAVOR at L = 65536, 8 heads, bfloat16 products <= 2 ms",
        "seconds of favorlab favor_causal_bfloat16, regular shape, L = 65536 (the target is the time itself)",
        [(r["shape"], r["L"], r["seconds_median"] / 2e-3) for r in rows if r["kind"] == "time" and
         r["implementation"] == "favorlab" and r["method"] == "favor_causal_bfloat16" and r["shape"] == "regular" and
         r["L"] == 65536], 1.0, "; value is time / 2 ms"))
    checks.append(timing_check(
        "Target: causal FAVOR <= 1.0x flash-linear-attention's chunked kernel on the same features",
        "time(favorlab favor_causal_bfloat16, features included) / time(fla chunk_linear_attn, bfloat16, features "
        "precomputed), both shapes",
        ratio_points(rows, {"implementation": "favorlab", "method": "favor_causal_bfloat16"},
                     {"implementation": "flash-linear-attention", "dtype": "bfloat16"}, SHAPES), 1.0))
    checks.append(timing_check(
        "Target: bidirectional FAVOR >= 50% of its bfloat16 products' rate",
        "time(favorlab favor_bidirectional_bfloat16) / time(favorlab gemm_bfloat16): at most 2",
        ratio_points(rows, {"implementation": "favorlab", "method": "favor_bidirectional_bfloat16"},
                     {"implementation": "favorlab", "method": "gemm_bfloat16"}, SHAPES), 2.0))
    return checks


def table(rows, lengths):
    """A plain-text table: per shape and L, the fastest exact and FAVOR in each mode and their ratio."""
    lines = [f"{'shape':>7} {'L':>6}  {'mode':<13} {'fastest exact':<44} {'ms':>8}  {'fastest FAVOR':<40} {'ms':>8}"
             f" {'FAVOR/exact':>11}"]
    for shape in SHAPES:
        for length in lengths:
            for mode in MODES:
                e = fastest(rows, shape, length, mode, {"exact"})
                f = fastest(rows, shape, length, mode, {"favor"}, {"favorlab"})
                if not e and not f:
                    continue
                ms = lambda r: f"{r['seconds_median'] * 1e3:8.3f}" if r else f"{'-':>8}"  # noqa: E731
                ratio = f"{f['seconds_median'] / e['seconds_median']:11.3f}" if e and f else f"{'-':>11}"
                lines.append(f"{shape:>7} {length:>6}  {mode:<13} {label(e) if e else '-':<44} {ms(e)}  "
                             f"{label(f) if f else '-':<40} {ms(f)} {ratio}")
    return "gpu-peer-speed: medians of one interleaved run (device time)\n" + "\n".join(lines)


# ---- agreement --------------------------------------------------------------------------------------------------

def agreement(args, torch, fla):
    """flash-linear-attention on favorlab's features against `favorlab attend --backend cuda --causal` with the same
    W, float32, 8 heads at L = AGREEMENT_L: the relative Frobenius distance, measured."""
    if fla is None:
        return {"kind": "agreement", "status": "not run", "why": "flash-linear-attention is not installed"}
    import numpy as np
    rng = np.random.default_rng(2021)
    heads = SHAPES["regular"]
    q, k, v = (rng.standard_normal((heads, AGREEMENT_L, D)).astype(np.float32) for _ in range(3))
    w = rng.standard_normal((M, D))
    with tempfile.TemporaryDirectory() as tmp:
        for name, x in (("q", q), ("k", k), ("v", v), ("w", w)):
            np.save(os.path.join(tmp, f"{name}.npy"), x)
        run_favorlab(args.favorlab, ["attend", "--q", f"{tmp}/q.npy", "--k", f"{tmp}/k.npy", "--v", f"{tmp}/v.npy",
                                     "--w", f"{tmp}/w.npy", "--causal", "--backend", "cuda", "--quiet", "--out",
                                     f"{tmp}/o.npy"], "attend --backend cuda --causal")
        ours = np.load(os.path.join(tmp, "o.npy")).astype(np.float64)
    tq, tk, tv = (torch.from_numpy(x)[None].cuda() for x in (q, k, v))
    fq, fk = favor_features(torch, tq, tk, torch.from_numpy(w.astype(np.float32)).cuda())
    theirs = fla_causal(fla, *(x.transpose(1, 2).contiguous() for x in (fq, fk, tv)))
    theirs = theirs.transpose(1, 2)[0].double().cpu().numpy()
    distance = float(np.linalg.norm(theirs - ours) / np.linalg.norm(ours))
    return {"kind": "agreement", "status": "measured", "L": AGREEMENT_L, "heads": heads, "d": D, "m": M,
            "dtype": "float32", "relative_frobenius_distance": distance,
            "what": "fla chunk_linear_attn on favorlab's positive features vs favorlab attend --backend cuda "
                    "--causal, the same W"}


# ---- main -------------------------------------------------------------------------------------------------------

def optional_import(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception as e:  # a missing or broken optional peer is recorded, not fatal
        say(f"{name} not available ({type(e).__name__}: {e}); its entries are left out")
        return None


def main(argv=None):
    args = parse_args(argv)
    args.favorlab = os.path.abspath(args.favorlab)
    started, utc = time.perf_counter(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device: this benchmark runs on a GPU")
    fla = optional_import("fla.ops.linear_attn")
    pp = optional_import("performer_pytorch")
    device = torch.cuda.get_device_name(0)
    say(f"torch {torch.__version__} on {device}; fla {version('flash-linear-attention') or version('fla-core')}, "
        f"performer-pytorch {version('performer-pytorch')}")
    peers = Peers(torch, fla, pp)
    agree = agreement(args, torch, fla)
    lengths, samples, notes, favorlab_provenance = measure(args, torch, peers)
    rows = time_rows(samples)
    crossovers = crossover_rows(rows, lengths)
    result = {
        "schema": "favorlab.result/1",
        "experiment": "gpu-peer-speed",
        "params": {"min_L": MIN_L, "max_L": args.max_l, "lengths": lengths, "shapes": SHAPES, "d": D, "dv": D,
                   "m": M, "features": "positive", "repeats": args.repeats, "quick": args.quick,
                   "time_cap": args.time_cap, "calls_per_repeat": CALLS_PER_REPEAT,
                   "favorlab_command": "FAVORLAB " + " ".join(favorlab_args(args.max_l, args.chunk)),
                   "peers": [list(e) for e in peers.entries()],
                   "timing": "device time from CUDA events; see the script's docstring for the interleaving"},
        "provenance": {"utc": utc, "wall_seconds": time.perf_counter() - started, "device": device,
                       "python": platform.python_version(), "torch": torch.__version__,
                       "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                       "flash_linear_attention": version("flash-linear-attention") or version("fla-core"),
                       "triton": version("triton"), "performer_pytorch": version("performer-pytorch"),
                       "favorlab": favorlab_provenance},
        "rows": rows + notes + crossovers + [agree],
        "checks": checks_of(rows),
    }
    write_atomically(result, args.out)
    say(f"wrote {args.out}")
    print(table(rows, lengths), flush=True)
    for c in crossovers:
        print(f"crossover, {c['shape']} {c['mode']}, exact from {c['exact_from']}: {c['note']}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError) as e:
        print(f"gpu_peer_bench: error: {e}", file=sys.stderr)
        sys.exit(1)
