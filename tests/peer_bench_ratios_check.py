#!/usr/bin/python3
"""Checks the ratio rows and target checks of scripts/peer_bench.py on made-up timings (no torch needed: the module
imports torch only in main()).

Usage: peer_bench_ratios_check.py SCRIPTS_DIR
Known answers: every ratio divides medians of the same run; a check counts the points on the target's side and
reports the worst; the performer-pytorch targets carry a ceiling, performer-pytorch over favorlab's bare GEMMs.
Power cases: a ceiling taken over favorlab's FAVOR time instead of its GEMMs, or a target counted on the wrong side,
gives other numbers than the ones required here.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, sys.argv[1])
import peer_bench  # noqa: E402


def samples_of(table, threads=1):
    """{(implementation, method): {L: [seconds of each repeat]}} -> the measure() layout, {(L, threads): ...}, with a
    load of 1.0."""
    return {key: {(length, threads): [(s, 1.0) for s in seconds] for length, seconds in by_length.items()}
            for key, by_length in table.items()}


def main():
    failures = []

    def expect(what, got, want):
        """Numbers to 1e-12 relative (they are quotients of the same floats), anything else exactly."""
        if isinstance(want, float):
            ok = isinstance(got, (int, float)) and abs(got - want) <= 1e-12 * abs(want)
        else:
            ok = got == want
        if not ok:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    def ceiling(check, index):
        points = check.get("ceiling") or []
        return points[index]["value"] if index < len(points) else None

    # Two lengths, three repeats each; medians: favorlab gemm 2.0 / 4.0, FAVOR bi 2.5 / 4.4, causal 3.0 / 5.0;
    # performer-pytorch bi 10 / 30, causal 120 / 400; exact 12 / 40 against SDPA 10 / 40.
    table = {
        ("favorlab", "gemm"): {1024: [2.0, 1.9, 2.2], 2048: [4.0, 4.1, 3.9]},
        ("favorlab", "favor_bidirectional"): {1024: [2.5, 2.6, 2.4], 2048: [4.4, 4.5, 4.3]},
        ("favorlab", "favor_causal"): {1024: [3.0, 2.9, 3.1], 2048: [5.0, 5.2, 4.8]},
        ("favorlab", "exact"): {1024: [12.0, 11.0, 13.0], 2048: [40.0, 41.0, 39.0]},
        ("pytorch", "sdpa_bidirectional"): {1024: [10.0, 9.0, 11.0], 2048: [40.0, 40.0, 40.0]},
        ("performer-pytorch", "fast_attention_bidirectional"): {1024: [10.0, 10.5, 9.5], 2048: [30.0, 31.0, 29.0]},
        ("performer-pytorch", "fast_attention_causal"): {1024: [120.0, 110.0, 130.0], 2048: [400.0, 390.0, 410.0]},
    }
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048], [1])
    checks = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}

    ratio = {(r["name"], r["L"]): r["value"] for r in rows}
    expect("performer bi / favorlab bi at 1024", ratio[("performer-pytorch fast_attention_bidirectional / favorlab "
                                                        "favor_bidirectional", 1024)], 10.0 / 2.5)
    expect("performer bi / favorlab gemm at 2048", ratio[("performer-pytorch fast_attention_bidirectional / favorlab "
                                                          "gemm", 2048)], 30.0 / 4.0)

    bi = checks["Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    expect("bidirectional: worst ratio", bi["value"], 10.0 / 2.5)  # 4.0 at L = 1024; 30 / 4.4 = 6.8 at 2048
    expect("bidirectional: status", bi["status"], "measured")
    if not bi["detail"].startswith("1 of 2 points within the target"):
        failures.append(f"bidirectional: counted {bi['detail'][:40]!r}, want 1 of 2")
    expect("bidirectional: ceiling at 1024", ceiling(bi, 0), 10.0 / 2.0)  # FAVOR's time would give 4.0
    expect("bidirectional: ceiling at 2048", ceiling(bi, 1), 30.0 / 4.0)
    if "(at or above the target at 2 of 2)" not in bi["detail"]:
        failures.append(f"bidirectional: ceiling count missing or wrong in {bi['detail']!r}")

    causal = checks["Target: causal FAVOR >= 50x faster than performer-pytorch"]
    expect("causal: worst ratio", causal["value"], 120.0 / 3.0)  # 40 at L = 1024; 80 at 2048
    expect("causal: ceiling at 1024", ceiling(causal, 0), 120.0 / 2.0)
    if "(at or above the target at 2 of 2)" not in causal["detail"]:
        failures.append(f"causal: ceiling count missing or wrong in {causal['detail']!r}")

    exact = checks["Target: exact attention <= 1.0x PyTorch scaled_dot_product_attention"]
    expect("exact: worst ratio", exact["value"], 12.0 / 10.0)  # 1.2 at 1024 (outside), 1.0 at 2048 (within)
    if not exact["detail"].startswith("1 of 2 points within the target"):
        failures.append(f"exact: counted {exact['detail'][:40]!r}, want 1 of 2")
    if "worst 1.2 at L=1024/threads=1" not in exact["detail"]:
        failures.append(f"exact: worst point not named in {exact['detail']!r}")
    if "ceiling" in exact:
        failures.append("exact: a ceiling on a target that has none")

    # Two thread counts: every ratio per (L, threads); a check's points span both.
    two = samples_of(table)
    for key, by_point in samples_of(table, threads=2).items():
        two[key].update({p: [(2 * s, load) for s, load in v] for p, v in by_point.items()})  # 2 threads: all 2x
    two[("pytorch", "sdpa_bidirectional")][(1024, 2)] = [(5.0, 1.0)] * 3  # SDPA gains from 2 threads, exact not
    rows2 = peer_bench.ratio_rows(two, [1024, 2048], [1, 2])
    exact2 = {c["claim"]: c for c in peer_bench.ratio_checks(rows2, "test")}[
        "Target: exact attention <= 1.0x PyTorch scaled_dot_product_attention"]
    expect("two thread counts: worst exact ratio", exact2["value"], 24.0 / 5.0)
    if not exact2["detail"].startswith("2 of 4 points") or "at L=1024/threads=2" not in exact2["detail"]:
        failures.append(f"two thread counts: {exact2['detail'][:90]!r}")

    # Fractions of the FMA peak: FLOP/s over threads x peak, FAVOR's products for FAVOR, 4 L^2 d per head for exact.
    fractions = peer_bench.fraction_rows(two, [1024, 2048], [1, 2], 1e9)
    gemm = {(r["L"], r["threads"]): r["value"] for r in fractions if r["method"] == "gemm"}
    products = 8 * 2 * (2 * 1024 * 64 * 256 + 2 * 1024 * 256 * 65)
    expect("fraction: gemm at 1024, 1 thread", gemm[(1024, 1)], products / 2.0 / 1e9)
    expect("fraction: gemm at 1024, 2 threads", gemm[(1024, 2)], products / 4.0 / (2 * 1e9))
    sdpa = next(r["value"] for r in fractions if r["method"] == "sdpa_bidirectional" and r["L"] == 2048
                and r["threads"] == 1)
    expect("fraction: SDPA at 2048", sdpa, 8 * 4 * 2048 * 2048 * 64 / 40.0 / 1e9)
    if peer_bench.fraction_rows(two, [1024], [1], None):
        failures.append("fractions without a measured peak")
    table_text = peer_bench.ratio_table(rows2 + fractions, [1, 2], [1024, 2048])
    lines = table_text.splitlines()
    if len(lines) != 6 or "exact/SDPA" not in lines[1] or not lines[5].split()[:3] == ["2", "2048", "1"]:
        failures.append(f"ratio table: {table_text!r}")

    # Without favorlab's GEMM rows the ceiling is reported as not measured, never invented.
    del table[("favorlab", "gemm")]
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048], [1])
    bi = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}[
        "Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    if bi["ceiling"] is not None or "ceiling not measured" not in bi["detail"]:
        failures.append(f"no GEMM rows: ceiling {bi['ceiling']!r}, detail {bi['detail']!r}")

    # A ceiling below the target is counted as such: performer-pytorch bi at 1024 takes 9 (ceiling 4.5 < 5).
    table[("favorlab", "gemm")] = {1024: [2.0, 2.0, 2.0], 2048: [4.0, 4.0, 4.0]}
    table[("performer-pytorch", "fast_attention_bidirectional")][1024] = [9.0, 9.0, 9.0]
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048], [1])
    bi = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}[
        "Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    if "(at or above the target at 1 of 2)" not in bi["detail"]:
        failures.append(f"ceiling below the target not counted: {bi['detail']!r}")

    for line in failures:
        print(f"peer_bench_ratios_check: FAIL {line}")
    if not failures:
        print("peer_bench_ratios_check: all known answers match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
