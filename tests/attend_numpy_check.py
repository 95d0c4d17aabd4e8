#!/usr/bin/python3
"""Cross-checks `favorlab attend` against an independent numpy implementation of FAVOR given the same W.

Usage: attend_numpy_check.py FAVORLAB_BINARY
Draws Q, K, V with numpy, lets favorlab draw W (--save-w), recomputes positive/trig/relu/oprf FAVOR and exact
attention in numpy (quadratic form: explicit feature products, tril for causal) and requires agreement to 1e-10
relative. oprf's A comes from the mean of |q_i + k_j|^2 over all L x L pairs, formed here pair by pair (favorlab forms
it from means and second moments); favorlab refuses oprf with --causal, which is checked too.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def oprf_a(u_q, u_k):
    """FAVOR++'s variance-minimising A for phi = mean |u_i + v_j|^2: the root of 2 phi r^2 + (2 phi + d) r - d = 0,
    r = 1/(1 - 8A), solved here by the quadratic formula (favorlab uses a cancellation-free form)."""
    d = u_q.shape[1]
    phi = np.mean(np.sum((u_q[:, None, :] + u_k[None, :, :]) ** 2, axis=2))
    r = (-(2 * phi + d) + np.sqrt((2 * phi + d) ** 2 + 8 * phi * d)) / (4 * phi)
    return (1 - 1 / r) / 8


def features(x, w, kind, a=0.0):
    d = x.shape[1]
    u = x * d ** -0.25
    proj = u @ w.T
    m = w.shape[0]
    half = 0.5 * np.sum(u * u, axis=1, keepdims=True)
    if kind == "positive":
        return np.exp(proj - half) / np.sqrt(m)
    if kind == "trig":
        return np.exp(half) * np.concatenate([np.sin(proj), np.cos(proj)], axis=1) / np.sqrt(m)
    if kind == "relu":
        return np.maximum(proj, 0.0) + 1e-3
    if kind == "oprf":  # (1 - 4A)^{d/4} exp(A |w|^2 + sqrt(1 - 4A) w.u - |u|^2/2) / sqrt(m)
        shift = a * np.sum(w * w, axis=1)[None, :] + d / 4 * np.log(1 - 4 * a)
        return np.exp(np.sqrt(1 - 4 * a) * proj + shift - half) / np.sqrt(m)
    raise ValueError(kind)


def attention(a, v, causal):
    if causal:
        a = np.tril(a)
    return (a @ v) / a.sum(axis=1, keepdims=True)


def main():
    binary = os.path.abspath(sys.argv[1])
    rng = np.random.default_rng(7)
    L, d, dv = 77, 16, 5
    q, k, v = (rng.standard_normal((L, n)) for n in (d, d, dv))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, arr in (("q", q), ("k", k), ("v", v)):
            np.save(os.path.join(tmp, name + ".npy"), arr)
        for mechanism, kind in (("favor", "positive"), ("favor", "trig"), ("favor", "relu"), ("favor", "oprf"),
                                ("exact", "")):
            for causal in (False, True):
                args = [binary, "attend", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "o.npy",
                        "--mechanism", mechanism, "--m", "32", "--chunk", "10", "--save-w", "w.npy", "--quiet"]
                if kind:
                    args += ["--features", kind]
                if causal:
                    args.append("--causal")
                if kind == "oprf" and causal:
                    refused = subprocess.run(args, cwd=tmp, capture_output=True, text=True)
                    ok = refused.returncode == 2 and "later keys" in refused.stderr
                    failures += not ok
                    print(f"{mechanism:5s} {kind:8s} causal=True  refused with exit 2: {'ok' if ok else 'FAIL'}")
                    continue
                subprocess.run(args, cwd=tmp, check=True)
                out = np.load(os.path.join(tmp, "o.npy"))
                if mechanism == "exact":
                    a = np.exp(q @ k.T / np.sqrt(d))
                else:
                    w = np.load(os.path.join(tmp, "w.npy"))
                    d_scale = d ** -0.25
                    a_param = oprf_a(q * d_scale, k * d_scale) if kind == "oprf" else 0.0
                    a = features(q, w, kind, a_param) @ features(k, w, kind, a_param).T
                ref = attention(a, v, causal)
                err = np.max(np.abs(out - ref)) / np.max(np.abs(ref))
                ok = err < 1e-10
                failures += not ok
                print(f"{mechanism:5s} {kind:8s} causal={causal!s:5s} relative error {err:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
