#!/usr/bin/env python3
"""Records the queries, keys and values every attention call of a Hugging Face model receives, for
`favorlab attention-report --input-dir DIR` (usage: scripts/capture-qkv.sh, which runs this in its venv).

One forward pass with attn_implementation="sdpa", with torch.nn.functional.scaled_dot_product_attention wrapped for
that pass only: what the wrapper sees is what the model attends with, after every projection and positional transform
(rotary included). The i-th call becomes layer i. Per layer, batch item 0, float32:
  layer{i}_q.npy, layer{i}_k.npy (H, L, d), layer{i}_v.npy (H, L, dv)  [+ layer{i}_attn.npy with --with-outputs]
Grouped-query keys and values are expanded to the query heads (query head h reads key/value head h // (H / H_kv), as
SDPA's enable_gqa does). favorlab computes softmax(Q Kᵀ / √d); a call whose scale s is not 1/√d has its Q multiplied
by s·√d here, and the manifest says so. What the layout cannot represent is refused with one line, exit status 2.

The argument checks import nothing beyond the standard library, so scripts/capture-qkv.sh runs them with Debian's
python3 before it builds the venv (--check-args-only).
"""
import argparse
import hashlib
import json
import math
import os
import re
import shutil
import stat
import sys
import tempfile

MANIFEST_FORMAT = "favorlab-capture-1"
DEFAULT_MAX_LENGTH = 512


class Refusal(Exception):
    """What the capture cannot represent faithfully, or bad input: one line, exit status 2."""


def parse_layers(text):
    """'0,2,5-7' -> {0, 2, 5, 6, 7}."""
    layers = set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?", part)
        if not match:
            raise Refusal(f"--layers: expected indices and ranges like 0,2,5-7, got '{text}'")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first:
            raise Refusal(f"--layers: range {first}-{last} runs backwards")
        layers.update(range(first, last + 1))
    return layers


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="scripts/capture-qkv.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="local model directory (or a hub name where the network allows)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="text file to run, tokenized by the model's tokenizer")
    source.add_argument("--tokens", type=int, help="run N random token ids instead (no tokenizer needed)")
    parser.add_argument("--out-dir", required=True, help="directory to write (new, empty, or an earlier capture)")
    parser.add_argument("--layers", help="layers to write, e.g. 0,2,5-7 (default: all)")
    parser.add_argument("--max-length", type=int, default=DEFAULT_MAX_LENGTH, help="at most this many tokens")
    parser.add_argument("--seed", type=int, default=0, help="seed of --tokens (default 0)")
    parser.add_argument("--with-outputs", action="store_true",
                        help="also write layer{i}_attn.npy: the attention output the model computed")
    parser.add_argument("--check-args-only", action="store_true", help=argparse.SUPPRESS)

    def error(message):  # argparse's own errors, as one line and exit 2 like the rest
        raise Refusal(message)

    parser.error = error
    args = parser.parse_args(argv)
    if args.tokens is not None and not 1 <= args.tokens <= 1_000_000:
        raise Refusal(f"--tokens must lie in [1, 1000000], got {args.tokens}")
    if not 1 <= args.max_length <= 1_000_000:
        raise Refusal(f"--max-length must lie in [1, 1000000], got {args.max_length}")
    args.layer_set = parse_layers(args.layers) if args.layers is not None else None
    if args.text is not None:
        try:
            st = os.stat(args.text)
        except FileNotFoundError:
            raise Refusal(f"--text {args.text}: no such file")
        except OSError as e:
            raise Refusal(f"--text {args.text}: cannot read ({e.strerror})")
        if stat.S_ISDIR(st.st_mode):
            raise Refusal(f"--text {args.text}: a directory, not a text file")
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read, a device never end
            raise Refusal(f"--text {args.text}: not a regular file (a FIFO, device or socket); save the text to a file")
        if st.st_size > TEXT_MAX_BYTES:
            raise Refusal(f"--text {args.text}: larger than {TEXT_MAX_BYTES >> 20} MiB; a capture runs at most "
                          "--max-length tokens of it")
        try:
            with open(args.text, "rb") as f:
                args.text_bytes = f.read()
            args.text_string = args.text_bytes.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise Refusal(f"--text {args.text}: cannot read as UTF-8 ({e})")
        if not args.text_string.strip():
            raise Refusal(f"--text {args.text}: the file is empty")
    # A hub name is NAME or OWNER/NAME. Anything else is a path; so is OWNER/NAME where OWNER is a directory here
    # (models/tiny): a typo in a local path must not be sent to the hub as a name.
    parts = args.model.split("/")
    looks_like_path = (args.model.startswith((".", "/", "~")) or len(parts) > 2 or "" in parts
                       or (len(parts) == 2 and os.path.isdir(parts[0])))
    if os.path.exists(args.model):
        if not os.path.isfile(os.path.join(args.model, "config.json")):
            raise Refusal(f"{args.model}: not a model directory (no config.json)")
    elif looks_like_path:
        raise Refusal(f"{args.model}: no such directory")
    check_out_dir(args.out_dir)
    return args


TEXT_MAX_BYTES = 64 << 20  # --text: far more than any --max-length of tokens needs


# What a capture writes into its directory, and nothing else: a re-capture replaces the directory whole, so it is
# allowed only where every entry is one of these (the user's notes beside an earlier capture are never deleted).
CAPTURE_FILE = re.compile(r"(layer\d+_(q|k|v|attn)\.npy|tokens\.npy|manifest\.json)")
MANIFEST_MAX_BYTES = 1 << 20  # a capture's manifest is a few kB; anything larger is not one


def read_earlier_manifest(path):
    """The parsed manifest at path when it is a regular file of favorlab's format, else None. Never blocks (a FIFO
    or a device is not opened), never reads more than MANIFEST_MAX_BYTES, and a nesting too deep for the parser, a
    bad encoding or a number beyond double counts as 'not a manifest'."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MANIFEST_MAX_BYTES:
        return None
    try:
        with open(path, "rb") as f:
            manifest = json.loads(f.read(MANIFEST_MAX_BYTES + 1).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT else None


def protected_directories():
    """Directories a capture must never replace: the filesystem root, the home directory, the current directory,
    and the favorlab checkout (scripts/capture-qkv.sh exports it), with every directory above them."""
    protected = {os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.getcwd())}
    checkout = os.environ.get("FAVORLAB_CHECKOUT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    protected.add(os.path.realpath(checkout))
    return protected


def check_out_dir(out_dir):
    """A new or empty directory, or an earlier capture holding only a capture's files (replaced whole); anything
    else is refused, and so is a directory the capture must never replace (protected_directories) or any above one."""
    if out_dir.strip() == "":
        raise Refusal("--out-dir is empty; name a new directory for the capture")
    if out_dir.startswith("~"):
        raise Refusal(f"--out-dir {out_dir}: '~' is not expanded here; write the path out")
    real = os.path.realpath(out_dir)
    for p in protected_directories():
        if p == real or p.startswith(real.rstrip(os.sep) + os.sep):
            raise Refusal(f"--out-dir {out_dir}: is {real}, which is or holds the root, the home directory, the current "
                          "directory or the favorlab checkout; a capture replaces its directory, so name a new one")
    if not os.path.lexists(out_dir):
        parent = os.path.dirname(os.path.abspath(out_dir))
        if not os.path.isdir(parent):
            raise Refusal(f"--out-dir {out_dir}: the parent directory {parent} does not exist")
        return
    if os.path.islink(out_dir) or not os.path.isdir(out_dir):
        raise Refusal(f"--out-dir {out_dir}: exists and is not a directory")
    entries = os.listdir(out_dir)
    if not entries:
        return
    if read_earlier_manifest(os.path.join(out_dir, "manifest.json")) is None:
        raise Refusal(f"--out-dir {out_dir}: not empty and not an earlier capture (no favorlab manifest.json); "
                      "choose a new directory")
    foreign = sorted(e for e in entries if not CAPTURE_FILE.fullmatch(e) or
                     not os.path.isfile(os.path.join(out_dir, e)) or os.path.islink(os.path.join(out_dir, e)))
    if foreign:
        shown = ", ".join(repr(e) for e in foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise Refusal(f"--out-dir {out_dir}: an earlier capture, but it also holds what a capture does not write "
                      f"({shown}); a new capture would delete them, so move them out or choose a new directory")


# ---- what each SDPA call receives ------------------------------------------------------------------------------


def classify_mask(attn_mask, is_causal, q_len, k_len):
    """'none' or 'causal' for a mask favorlab can reproduce, else raises Refusal naming what the mask does.

    attn_mask: None, a boolean mask (True = may attend) or an additive float mask, broadcastable to
    (B, H, Lq, Lk); only batch item 0 is captured, but every batch item is checked (batch > 1 with padding refused).
    An explicit mask that equals the causal pattern (transformers often passes one instead of is_causal=True) counts
    as causal."""
    import torch

    if is_causal and attn_mask is not None:
        raise Refusal("an SDPA call passed both is_causal=True and a mask")
    if attn_mask is None:
        if is_causal and q_len != k_len:
            raise Refusal(f"causal attention with {q_len} queries and {k_len} keys (a key-value cache?) is not "
                          "supported: run the model on the whole sequence at once")
        return "causal" if is_causal else "none"
    mask = attn_mask.detach()
    if mask.dtype == torch.bool:
        allowed = mask
    else:
        mask = mask.to(torch.float64)
        # Blocked entries are -inf or the dtype's most negative values (transformers uses its minimum); any other
        # nonzero value is a bias on the logits (ALiBi, relative positions), which favorlab cannot add.
        blocked = (mask == -math.inf) | (mask <= torch.finfo(attn_mask.dtype).min / 2)
        if bool(((~blocked) & (mask != 0)).any()):
            raise Refusal("the model adds a bias to the attention logits (ALiBi, relative position or other "
                          "additive mask): favorlab's softmax(QKᵀ/√d) cannot represent it")
        allowed = ~blocked
    while allowed.dim() < 4:
        allowed = allowed.unsqueeze(0)
    allowed = allowed.expand(allowed.shape[0], allowed.shape[1], q_len, k_len)
    if bool(allowed.all()):
        return "none"
    causal = torch.ones(q_len, k_len, dtype=torch.bool).tril(diagonal=k_len - q_len)
    if q_len == k_len and bool((allowed == causal).all()):
        return "causal"
    # Name the pattern, so the user knows what to change.
    if bool((~allowed).all(dim=-2).any()):  # a key no query may see
        what = "batch > 1 with padding" if allowed.shape[0] > 1 else "a padding mask (keys hidden from every query)"
    elif q_len == k_len and bool((allowed <= causal).all()):
        what = "a sliding-window (local) causal mask"
    else:
        what = "a mask that is neither none nor causal"
    raise Refusal(f"an SDPA call used {what}: favorlab analyses full or causal attention only (run one unpadded "
                  "sequence no longer than the window)")


class Recorder:
    """Wraps torch.nn.functional.scaled_dot_product_attention while active; keeps what each call received."""

    def __init__(self):
        self.calls = []

    def __enter__(self):
        import torch.nn.functional as F

        self._functional = F
        self._original = F.scaled_dot_product_attention
        original = self._original
        calls = self.calls

        def recording(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kwargs):
            output = original(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
                              scale=scale, **kwargs)
            calls.append({"q": query.detach(), "k": key.detach(), "v": value.detach(), "attn_mask": attn_mask,
                          "dropout_p": dropout_p, "is_causal": bool(is_causal), "scale": scale,
                          "enable_gqa": bool(kwargs.get("enable_gqa", False)), "output": output.detach()})
            return output

        F.scaled_dot_product_attention = recording
        return self

    def __exit__(self, *exc):
        self._functional.scaled_dot_product_attention = self._original
        return False


def layer_arrays(call):
    """The call's batch item 0 as favorlab's (H, L, d) float32 arrays, plus what the manifest records of it."""
    import torch

    q, k, v = call["q"], call["k"], call["v"]
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise Refusal(f"an SDPA call had queries of shape {tuple(q.shape)}: expected (batch, heads, L, d)")
    if call["dropout_p"]:
        raise Refusal(f"an SDPA call used dropout p = {call['dropout_p']}: the model is not in eval mode")
    heads, q_len, d = q.shape[1], q.shape[2], q.shape[3]
    kv_heads, k_len = k.shape[1], k.shape[2]
    mask = classify_mask(call["attn_mask"], call["is_causal"], q_len, k_len)
    if heads % kv_heads != 0:
        raise Refusal(f"{heads} query heads but {kv_heads} key/value heads: not a grouped-query layout")
    q0, k0, v0 = q[0].to(torch.float64), k[0].to(torch.float64), v[0].to(torch.float64)
    if kv_heads != heads:
        # Query head h reads key/value head h // group (SDPA's enable_gqa, transformers' repeat_kv).
        group = heads // kv_heads
        k0 = k0.repeat_interleave(group, dim=0)
        v0 = v0.repeat_interleave(group, dim=0)
    default_scale = 1.0 / math.sqrt(d)
    scale = default_scale if call["scale"] is None else float(call["scale"])
    # favorlab scales Q and K by d^(-1/4) each; folding s·√d into Q (in float64, rounded once) keeps the softmax.
    factor = scale * math.sqrt(d)
    if factor != 1.0:
        q0 = q0 * factor
    arrays = {"q": q0, "k": k0, "v": v0, "attn": call["output"][0]}
    arrays = {name: a.to(torch.float32).contiguous().cpu().numpy() for name, a in arrays.items()}
    info = {"heads": int(heads), "kv_heads": int(kv_heads), "Lq": int(q_len), "L": int(k_len), "d": int(d),
            "dv": int(v.shape[3]), "mask": mask, "causal": mask == "causal",
            "explicit_causal_mask": mask == "causal" and call["attn_mask"] is not None,
            "enable_gqa": call["enable_gqa"], "scale": scale, "scale_is_default": call["scale"] is None or
            abs(scale - default_scale) <= 1e-7 * default_scale, "q_multiplied_by": factor}
    return arrays, info


# ---- the model ---------------------------------------------------------------------------------------------------


def load_model(name):
    import torch
    import transformers
    from transformers import AutoConfig, AutoModel

    # Progress bars and advice would bury the one line a refusal prints.
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()

    try:
        config = AutoConfig.from_pretrained(name)
    except Exception as e:  # noqa: BLE001 - transformers raises many kinds; the user needs one line
        raise Refusal(f"{name}: cannot load the model's config ({first_line(e)})")
    try:
        try:
            model = AutoModel.from_pretrained(name, attn_implementation="sdpa", dtype=torch.float32)
        except TypeError:  # transformers before the dtype= keyword
            model = AutoModel.from_pretrained(name, attn_implementation="sdpa", torch_dtype=torch.float32)
    except ValueError as e:
        raise Refusal(f"{name}: cannot load with attn_implementation='sdpa' ({first_line(e)})")
    except Exception as e:  # noqa: BLE001
        raise Refusal(f"{name}: cannot load the model ({first_line(e)})")
    model.eval()
    return config, model


def first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def input_ids_for(args, config, model_name):
    """The token ids to run (1, L), and the manifest's description of where they came from."""
    import torch

    limit = args.max_length
    positions = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    if positions and positions < limit:
        limit = int(positions)  # a longer input would index past the position table
    if args.tokens is not None:
        vocab = getattr(config, "vocab_size", None)
        if not vocab:
            raise Refusal(f"{model_name}: the config has no vocab_size to draw --tokens from")
        n = min(args.tokens, limit)
        generator = torch.Generator().manual_seed(args.seed)
        ids = torch.randint(0, int(vocab), (1, n), generator=generator)
        source = {"kind": "random-tokens", "requested": args.tokens, "seed": args.seed, "vocab_size": int(vocab)}
    else:
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(model_name)
        except Exception as e:  # noqa: BLE001
            raise Refusal(f"{model_name}: no tokenizer to read --text with ({first_line(e)}); use --tokens N")
        ids = tokenizer(args.text_string, return_tensors="pt", truncation=True, max_length=limit)["input_ids"]
        source = {"kind": "text", "file": os.path.abspath(args.text),
                  "sha256": hashlib.sha256(args.text_bytes).hexdigest(),
                  "truncated": len(tokenizer(args.text_string)["input_ids"]) > ids.shape[1]}
    if ids.shape[1] < 2:
        raise Refusal("the input has fewer than 2 tokens")
    source["length_limit"] = limit
    return ids, source


def capture(model, input_ids):
    """Runs one forward pass and returns the recorded SDPA calls; refuses a model that never calls SDPA."""
    import torch

    with torch.no_grad(), Recorder() as recorder:
        model(input_ids=input_ids)
    if not recorder.calls:
        raise Refusal("the model never called torch.nn.functional.scaled_dot_product_attention (its attention is "
                      "computed another way): nothing to capture")
    return recorder.calls


def write_capture(args, config, model_name, input_ids, source, calls):
    import numpy as np
    import torch
    import transformers

    n_calls = len(calls)
    wanted = sorted(args.layer_set) if args.layer_set is not None else list(range(n_calls))
    if wanted and wanted[-1] >= n_calls:
        raise Refusal(f"--layers asks for layer {wanted[-1]} but the model made {n_calls} attention calls "
                      f"(layers 0-{n_calls - 1})")
    # Every call is checked, written or not: the manifest's flags describe the whole model.
    infos = []
    for i, call in enumerate(calls):
        try:
            infos.append(layer_arrays(call)[1] if i not in wanted else None)
        except Refusal as e:
            raise Refusal(f"layer {i}: {e}")
    out_dir = os.path.abspath(args.out_dir)
    staging = tempfile.mkdtemp(prefix=".capture-", dir=os.path.dirname(out_dir))
    try:
        for i in wanted:
            try:
                arrays, infos[i] = layer_arrays(calls[i])
            except Refusal as e:
                raise Refusal(f"layer {i}: {e}")
            for name in ("q", "k", "v") + (("attn",) if args.with_outputs else ()):
                np.save(os.path.join(staging, f"layer{i}_{name}.npy"), arrays[name])
        np.save(os.path.join(staging, "tokens.npy"), input_ids[0].to(torch.int64).numpy())
        causal_flags = {info["causal"] for info in infos}
        if len(causal_flags) != 1:
            raise Refusal("some attention calls are causal and some are not (an encoder-decoder?): capture the "
                          "encoder or the decoder on its own")
        first = infos[wanted[0]] if wanted else infos[0]
        kv_heads = sorted({info["kv_heads"] for info in infos})
        scales = [info["scale"] for info in infos]
        manifest = {
            "format": MANIFEST_FORMAT,
            "model": model_name.rstrip("/").split("/")[-1] if os.path.isdir(model_name) else model_name,
            "model_type": getattr(config, "model_type", None),
            "path": os.path.abspath(model_name) if os.path.isdir(model_name) else model_name,
            "revision": getattr(config, "_commit_hash", None),
            "input": source,
            "tokens_sha256": hashlib.sha256(input_ids[0].to(torch.int64).numpy().tobytes()).hexdigest(),
            "L": int(input_ids.shape[1]),
            "attention_calls": n_calls,
            "layers": [{"name": f"layer{i}", "call": i, **infos[i]} for i in wanted],
            "heads": first["heads"],
            "kv_heads": kv_heads[0] if len(kv_heads) == 1 else kv_heads,
            "kv_expanded": any(info["kv_heads"] != info["heads"] for info in infos),
            "kv_expansion": "query head h reads key/value head h // (heads / kv_heads), as SDPA's enable_gqa does",
            "d": first["d"],
            "dv": first["dv"],
            "scale": scales[0] if len(set(scales)) == 1 else scales,
            "scale_is_default": all(info["scale_is_default"] for info in infos),
            "scale_folded_into_q": True,
            "causal": causal_flags.pop(),
            "mask": sorted({info["mask"] for info in infos}),
            "explicit_causal_mask": any(info["explicit_causal_mask"] for info in infos),
            "dtype": "float32",
            "checkpoint_dtype": str(getattr(config, "dtype", None)).replace("torch.", ""),
            "batch_item": 0,
            "attn_implementation": "sdpa",
            "with_outputs": bool(args.with_outputs),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        with open(os.path.join(staging, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2, default=str)
            f.write("\n")
        # Published whole or not at all: an earlier capture is moved aside first and removed after.
        check_out_dir(args.out_dir)
        old = None
        if os.path.exists(out_dir):
            old = tempfile.mkdtemp(prefix=".capture-old-", dir=os.path.dirname(out_dir))
            os.rename(out_dir, os.path.join(old, "dir"))
        os.rename(staging, out_dir)
        staging = None
        if old:
            shutil.rmtree(old, ignore_errors=True)
        return manifest
    finally:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)


def main(argv):
    try:
        args = parse_args(argv)
        if args.check_args_only:
            return 0
        import torch

        torch.manual_seed(0)
        config, model = load_model(args.model)
        input_ids, source = input_ids_for(args, config, args.model)
        calls = capture(model, input_ids)
        manifest = write_capture(args, config, args.model, input_ids, source, calls)
    except Refusal as e:
        print(f"capture-qkv: error: {e}", file=sys.stderr)
        return 2
    print(f"capture-qkv: {manifest['model']}: {len(manifest['layers'])} of {manifest['attention_calls']} layers, "
          f"L = {manifest['L']}, {manifest['heads']} heads (kv {manifest['kv_heads']}), d = {manifest['d']}, "
          f"{'causal' if manifest['causal'] else 'bidirectional'} -> {os.path.abspath(args.out_dir)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
