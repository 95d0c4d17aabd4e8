#!/usr/bin/env python3
"""scripts/capture-qkv.sh on three tiny models built from configs with random weights (no download): a BERT-style
encoder, a Llama-style decoder with rotary embeddings and grouped-query attention, a GPT-2-style decoder whose softmax
scale is not 1/√d (scale_attn_by_inverse_layer_idx). For each, `favorlab attend --mechanism exact` on the captured
Q, K, V must give the attention output the model's own SDPA call computed, per layer, to float32 rounding; the
manifest's causal flag must match the model; and the same run with the causal flag flipped (or, for GPT-2, with the
scale left unfolded) must NOT match, so the comparison can tell. Then the refusals: a sliding-window model, a model
that never calls SDPA, and the mask classifier on padding, additive-bias and explicit causal masks.

  capture_qkv_check.py FAVORLAB_BINARY REPO_ROOT
Run by Debian's python3 (ctest): exits 77 (skipped) when REPO_ROOT/build/capture-venv cannot import torch and
transformers (create it: scripts/capture-qkv.sh --setup), else re-runs itself in the venv.
"""
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
# Relative to the layer's largest |output|: float32 rounding through two softmax implementations (measured ~5e-7,
# i.e. a few ulps); a wrong mask, scale or head order is off by order 1.
TOLERANCE = 4e-6


def venv_python(root):
    return os.path.join(root, "build", "capture-venv", "bin", "python")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def build_models(directory):
    import torch
    import transformers
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model, LlamaConfig, LlamaModel

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    torch.manual_seed(1)
    models = {
        # Larger initial weights than the default 0.02, so attention is far from uniform and a wrong scale, mask or
        # head order shows.
        "bert": (BertModel(BertConfig(vocab_size=97, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=64, max_position_embeddings=64, initializer_range=0.4)),
                 False),
        "llama": (LlamaModel(LlamaConfig(vocab_size=97, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                         num_key_value_heads=2, intermediate_size=96, max_position_embeddings=64,
                                         initializer_range=0.4)), True),
        "gpt2": (GPT2Model(GPT2Config(vocab_size=97, bos_token_id=0, eos_token_id=0, n_embd=32, n_layer=3, n_head=4, n_positions=64,
                                      initializer_range=0.4, scale_attn_by_inverse_layer_idx=True)), True),
    }
    paths = {}
    for name, (model, causal) in models.items():
        path = os.path.join(directory, name)
        model.save_pretrained(path)
        paths[name] = (path, causal)
    return paths


def run_capture(root, model, out, *extra):
    return subprocess.run(["bash", os.path.join(root, "scripts", "capture-qkv.sh"), model, "--out-dir", out, *extra],
                          capture_output=True, text=True)


def attend(binary, directory, layer, causal, scratch):
    import numpy as np

    out = os.path.join(scratch, f"{layer}_exact.npy")
    command = [binary, "attend", "--mechanism", "exact", "--quiet", "--q", os.path.join(directory, f"{layer}_q.npy"),
               "--k", os.path.join(directory, f"{layer}_k.npy"), "--v", os.path.join(directory, f"{layer}_v.npy"),
               "--out", out] + (["--causal"] if causal else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{' '.join(command)}: {done.stderr.strip()}")
    return np.load(out)


def check_model(binary, root, name, path, causal, scratch):
    import numpy as np

    out = os.path.join(scratch, f"{name}-capture")
    done = run_capture(root, path, out, "--tokens", "24", "--with-outputs", "--seed", "3")
    if done.returncode != 0:
        fail(f"{name}: capture exited {done.returncode}: {done.stderr.strip()}")
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    if manifest["causal"] is not causal:
        fail(f"{name}: manifest says causal = {manifest['causal']}, the model is {'causal' if causal else 'not'}")
    worst, worst_relative, worst_wrong = 0.0, 0.0, float("inf")
    for layer in manifest["layers"]:
        model_output = np.load(os.path.join(out, f"{layer['name']}_attn.npy"))
        q = np.load(os.path.join(out, f"{layer['name']}_q.npy"))
        if q.dtype != np.float32 or q.shape != (manifest["heads"], manifest["L"], manifest["d"]):
            fail(f"{name} {layer['name']}: q is {q.dtype} {q.shape}")
        exact = attend(binary, out, layer["name"], manifest["causal"], scratch)
        size = float(np.max(np.abs(model_output)))
        error = float(np.max(np.abs(exact - model_output)))
        worst, worst_relative = max(worst, error), max(worst_relative, error / size)
        # The same inputs judged with the wrong mask must be far off, or this comparison could not see a mistake.
        wrong = attend(binary, out, layer["name"], not manifest["causal"], scratch)
        worst_wrong = min(worst_wrong, float(np.max(np.abs(wrong - model_output))) / size)
    if worst_relative > TOLERANCE:
        fail(f"{name}: max |favorlab exact - model attention| / max |model attention| = {worst_relative:.3g} > "
             f"{TOLERANCE}")
    if not worst_wrong > 100 * TOLERANCE:
        fail(f"{name}: the flipped causal flag also matches (difference {worst_wrong:.3g}): the test cannot tell")
    extra = ""
    if name == "llama":
        if manifest["kv_heads"] != 2 or manifest["heads"] != 4 or not manifest["kv_expanded"]:
            fail(f"{name}: manifest heads {manifest['heads']}, kv_heads {manifest['kv_heads']}, "
                 f"kv_expanded {manifest['kv_expanded']}")
    if name == "gpt2":
        # Layer i's scale is 1/(√d (i+1)): folded into Q, so unfolding it must break the match.
        layer = manifest["layers"][2]
        if abs(layer["q_multiplied_by"] - 1 / 3) > 1e-12 or manifest["scale_is_default"]:
            fail(f"{name}: layer 2's Q factor is {layer['q_multiplied_by']}, expected 1/3")
        q_path = os.path.join(out, "layer2_q.npy")
        np.save(q_path, np.load(q_path) / np.float32(layer["q_multiplied_by"]))
        unfolded = attend(binary, out, "layer2", True, scratch)
        model_output = np.load(os.path.join(out, "layer2_attn.npy"))
        gap = float(np.max(np.abs(unfolded - model_output))) / float(np.max(np.abs(model_output)))
        if not gap > 100 * TOLERANCE:
            fail(f"{name}: Q without the scale factor also matches (difference {gap:.3g}): the test cannot tell")
        extra = f", unscaled Q off by {gap:.3g}"
    print(f"{name}: {len(manifest['layers'])} layers, causal = {manifest['causal']}, max |favorlab exact - model "
          f"attention| = {worst:.3g} ({worst_relative:.3g} of max |attention|; wrong causal flag: "
          f"{worst_wrong:.3g}{extra})")
    return out


def check_refusals(root, scratch, paths):
    import torch
    from transformers import MistralConfig, MistralModel

    sys.path.insert(0, os.path.join(root, "scripts"))
    import capture_qkv as cq

    # A sliding window shorter than the input: an explicit mask that is neither none nor causal.
    window = os.path.join(scratch, "mistral-window")
    MistralModel(MistralConfig(vocab_size=97, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                               num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64,
                               sliding_window=4)).save_pretrained(window)
    refusals = [(run_capture(root, window, os.path.join(scratch, "w-out"), "--tokens", "16"), "sliding-window",
                 os.path.join(scratch, "w-out"))]
    # Arguments: refused before any model is loaded, nothing written.
    refusals.append((run_capture(root, paths["bert"][0], os.path.join(scratch, "no-such", "x"), "--tokens", "8"),
                     "parent directory", os.path.join(scratch, "no-such")))
    refusals.append((run_capture(root, paths["bert"][0], os.path.join(scratch, "l-out"), "--tokens", "8",
                                 "--layers", "5"), "--layers asks for layer 5", os.path.join(scratch, "l-out")))
    for done, expected, path in refusals:
        lines = done.stderr.strip().splitlines()
        if done.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
            fail(f"expected one line naming '{expected}' and exit 2, got {done.returncode}: {done.stderr.strip()}")
        if os.path.exists(path):
            fail(f"a refused capture left {path} behind")
    leftovers = [e for e in os.listdir(scratch) if e.startswith(".capture-")]
    if leftovers:
        fail(f"staging directories left behind: {leftovers}")

    class NoSdpa(torch.nn.Module):
        def forward(self, input_ids):
            return input_ids.float().softmax(-1)

    try:
        cq.capture(NoSdpa(), torch.zeros(1, 4, dtype=torch.long))
        fail("a model that never calls SDPA was not refused")
    except cq.Refusal as e:
        if "never called" not in str(e):
            fail(f"wrong refusal for a model without SDPA: {e}")

    L = 6
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    padding = torch.ones(1, 1, L, L, dtype=torch.bool)
    padding[..., :2] = False  # left padding: two keys hidden from every query
    minimum = torch.finfo(torch.float32).min
    additive_causal = torch.zeros(1, 1, L, L).masked_fill(~causal, minimum)
    alibi = -torch.arange(L, dtype=torch.float32).view(1, 1, 1, L).expand(1, 1, L, L).contiguous()
    window = causal & ~torch.ones(L, L, dtype=torch.bool).tril(-3)
    batch_padding = torch.ones(2, 1, L, L, dtype=torch.bool)
    batch_padding[1, ..., :3] = False
    accepted = [(None, False, "none"), (None, True, "causal"), (torch.ones(1, 1, L, L, dtype=torch.bool), False, "none"),
                (causal.view(1, 1, L, L), False, "causal"), (additive_causal, False, "causal"),
                (torch.zeros(L, L), False, "none")]
    for mask, is_causal, expected in accepted:
        got = cq.classify_mask(mask, is_causal, L, L)
        if got != expected:
            fail(f"classify_mask gave {got}, expected {expected}")
    rejected = [(padding, "padding"), (padding & causal, "padding"), (alibi, "bias"), (window, "sliding-window"),
                (batch_padding, "batch > 1"), (causal.T.contiguous(), "neither none nor causal")]
    for mask, expected in rejected:
        try:
            got = cq.classify_mask(mask, False, L, L)
            fail(f"classify_mask accepted a mask that should be refused as {expected} (gave {got})")
        except cq.Refusal as e:
            if expected not in str(e):
                fail(f"classify_mask refused with '{e}', expected it to name {expected}")
    print("refusals: sliding window, bad arguments, no SDPA call, padding, additive bias, batch padding: ok")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    python = venv_python(root)
    if os.environ.get("CAPTURE_QKV_CHECK_IN_VENV") != "1":
        probe = [python, "-W", "ignore", "-c", "import numpy, torch, transformers"]
        if not os.path.exists(python) or subprocess.run(probe, capture_output=True).returncode != 0:
            print(f"SKIP: {python} cannot import torch and transformers (scripts/capture-qkv.sh --setup creates it)")
            return SKIP
        os.environ["CAPTURE_QKV_CHECK_IN_VENV"] = "1"
        os.execv(python, [python, "-W", "ignore", os.path.abspath(__file__), binary, root])
    with tempfile.TemporaryDirectory() as scratch:
        paths = build_models(scratch)
        for name, (path, causal) in paths.items():
            check_model(binary, root, name, path, causal, scratch)
        check_refusals(root, scratch, paths)
    print("capture-qkv: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
