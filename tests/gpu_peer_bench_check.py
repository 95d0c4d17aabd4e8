#!/usr/bin/python3
"""Checks the rows, crossovers, target checks and figure of scripts/gpu_peer_bench.py on made-up device times (no
torch and no GPU: the script imports torch only in main()).

Usage: gpu_peer_bench_check.py SCRIPTS_DIR PLOTTING_DIR
Known answers: a crossover is the first L of the trailing run where favorlab's fastest FAVOR beats the fastest exact
kernel, per field (favorlab's own exact; any library's); favorlab's exact kernel is held to SDPA's fastest float32
backend, not to a faster bfloat16 one; the 2 ms target reads time / 2 ms; the fla target divides favorlab's causal
bfloat16 FAVOR by fla's bfloat16 time. Power cases: a FAVOR that loses again at the largest L has no crossover; a
crossover taken against favorlab's exact alone differs from the one against every library.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import gpu_peer_bench as g  # noqa: E402

LENGTHS = [1024, 2048, 4096, 8192]


def samples_of(table):
    """{(implementation, method, dtype): [ms at each L]} for the regular shape -> the measure() layout, three equal
    repeats in seconds."""
    out = {}
    for (implementation, method, dtype), ms in table.items():
        for length, value in zip(LENGTHS, ms):
            out[(implementation, method, dtype, "regular", length)] = [value * 1e-3] * 3
    return out


def main():
    failures = []

    def expect(what, got, want):
        ok = (abs(got - want) <= 1e-12 * abs(want)) if isinstance(want, float) and isinstance(got, float) \
            else got == want
        if not ok:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    table = {
        ("favorlab", "exact", "float32"): [2, 6, 10, 18],
        ("favorlab", "exact_causal", "float32"): [1, 3, 5, 9],
        ("favorlab", "exact_bfloat16", "float32"): [1.2, 3.2, 5.5, 9.9],  # cuDNN in bfloat16 (float32 inputs)
        ("favorlab", "favor_bidirectional", "float32"): [5, 5, 5, 5],
        ("favorlab", "favor_bidirectional_bfloat16", "float32"): [4, 4, 4, 4],
        ("favorlab", "gemm_bfloat16", "float32"): [1, 1, 2, 2],
        ("favorlab", "favor_causal_bfloat16", "float32"): [3, 3, 3, 3],
        ("favorlab", "favor_oprf", "float32"): [0.1, 0.1, 0.1, 0.1],  # not positive FAVOR: never the fastest FAVOR
        ("pytorch", "sdpa_efficient_bidirectional", "float32"): [1.5, 3.5, 8, 16],
        ("pytorch", "sdpa_flash_bidirectional", "bfloat16"): [1, 3, 5, 9],
        ("pytorch", "sdpa_flash_causal", "bfloat16"): [0.5, 1, 2, 4],
        ("flash-linear-attention", "chunk_linear_attn_causal", "bfloat16"): [1.5, 1.5, 3, 6],
    }
    rows = g.time_rows(samples_of(table))
    expect("time rows", len(rows), 4 * len(table))
    row = next(r for r in rows if r["method"] == "favor_causal_bfloat16" and r["L"] == 1024)
    expect("causal bf16 FAVOR: mode, class, products", (row["mode"], row["class"], row["products"]),
           ("causal", "favor", "bfloat16"))
    expect("fla's class", next(r["class"] for r in rows if r["implementation"] == "flash-linear-attention"), "linear")
    expect("oprf's class", next(r["class"] for r in rows if r["method"] == "favor_oprf"), "other")

    crossovers = {(c["mode"], c["exact_from"]): c for c in g.crossover_rows(rows, LENGTHS) if c["shape"] == "regular"}
    # Bidirectional: fastest FAVOR 4 ms; any library's exact 1, 3, 5, 9 -> wins from 4096; favorlab's own fastest
    # exact (cuDNN's 1.2, 3.2, 5.5, 9.9 under the tiled 2, 6, 10, 18) -> from 4096 too, 2048 against the tiled alone.
    expect("bidirectional crossover, any library", crossovers[("bidirectional", "any library")]["crossover_L"], 4096)
    expect("bidirectional crossover, favorlab", crossovers[("bidirectional", "favorlab")]["crossover_L"], 4096)
    no_cudnn = {key: value for key, value in table.items() if key[1] != "exact_bfloat16"}
    tiled_only = next(c for c in g.crossover_rows(g.time_rows(samples_of(no_cudnn)), LENGTHS)
                      if c["shape"] == "regular" and c["mode"] == "bidirectional" and c["exact_from"] == "favorlab")
    expect("bidirectional crossover, favorlab's tiled kernel alone", tiled_only["crossover_L"], 2048)
    expect("its FAVOR", crossovers[("bidirectional", "any library")]["points"][0]["favor"],
           "favorlab favor_bidirectional_bfloat16 (bfloat16)")
    # Causal: FAVOR 3 ms; flash causal 0.5, 1, 2, 4 -> wins at 8192 only; favorlab's exact 1, 3, 5, 9 -> from 4096
    # (3 against 3 at 2048 is no win).
    expect("causal crossover, any library", crossovers[("causal", "any library")]["crossover_L"], 8192)
    expect("causal crossover, favorlab", crossovers[("causal", "favorlab")]["crossover_L"], 4096)
    # Power: FAVOR losing again at the largest L has no crossover at all.
    lost = dict(table)
    lost[("pytorch", "sdpa_flash_causal", "bfloat16")] = [0.5, 1, 2, 2.5]
    lost_rows = g.time_rows(samples_of(lost))
    causal_any = next(c for c in g.crossover_rows(lost_rows, LENGTHS)
                      if c["shape"] == "regular" and c["mode"] == "causal" and c["exact_from"] == "any library")
    expect("no crossover when FAVOR loses at the largest L", causal_any["crossover_L"], None)
    expect("its note", causal_any["note"], "FAVOR never faster up to L = 8192")
    small = [c for c in g.crossover_rows(rows, LENGTHS) if c["shape"] == "small"]
    expect("a shape not measured", {c["note"] for c in small}, {"no L measured for both"})

    checks = {c["claim"]: c for c in g.checks_of(rows)}
    exact = checks["Target: bidirectional exact attention <= 1.15x PyTorch SDPA's fastest backend, same dtype, "
                   "L >= 4096"]
    # Each format against its own: float32 10 and 18 against SDPA's 8 and 16 (not bfloat16's 5 and 9), bfloat16
    # 5.5 and 9.9 against flash's 5 and 9: worst 10/8 (pairing across formats would give 10/5 or 5.5/8).
    expect("exact vs SDPA, same format", exact["value"], 10 / 8)
    expect("exact vs SDPA: 10/8 out, 18/16, 5.5/5, 9.9/9 in", exact["detail"].split(";")[0],
           "3 of 4 points within the target")
    expect("exact vs SDPA status", exact["status"], "measured")
    causal_exact = checks["Target: causal exact attention <= 1.15x PyTorch SDPA's fastest backend, same dtype, "
                          "L >= 4096"]
    expect("no float32 causal SDPA: inconclusive", causal_exact["status"], "inconclusive")
    two_ms = checks["Target: causal FAVOR at L = 65536, 8 heads, bfloat16 products <= 2 ms"]
    expect("no L = 65536 here", two_ms["status"], "inconclusive")
    fla = checks["Target: causal FAVOR <= 1.0x flash-linear-attention's chunked kernel on the same features"]
    expect("FAVOR / fla, worst", fla["value"], 3 / 1.5)
    expect("points within 1.0 (3/3 and 3/6)", fla["detail"].split(";")[0], "2 of 4 points within the target")
    rate = checks["Target: bidirectional FAVOR >= 50% of its bfloat16 products' rate"]
    expect("FAVOR / its bf16 products, worst", rate["value"], 4.0)
    # The 2 ms target at L = 65536 reads time / 2 ms.
    at_65536 = g.time_rows({("favorlab", "favor_causal_bfloat16", "float32", "regular", 65536): [1.5e-3] * 3})
    two_ms = next(c for c in g.checks_of(at_65536) if "2 ms" in c["claim"])
    expect("1.5 ms against 2 ms", two_ms["value"], 0.75)

    text = g.table(rows, LENGTHS)
    expect("table lines", len(text.splitlines()), 2 + 2 * len(LENGTHS))

    # The figure draws from a result of these rows (Agg, nothing written).
    import matplotlib
    matplotlib.use("Agg")
    import plot_gpu_peer_speed
    figures = plot_gpu_peer_speed.plot_gpu_peer_speed(
        {"params": {"repeats": 3}, "provenance": {"device": "a test"},
         "rows": rows + g.crossover_rows(rows, LENGTHS)})
    expect("one figure", list(figures), ["gpu-peer-speed.png"])

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("gpu peer bench: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
