#!/usr/bin/env python3
"""scripts/capture-qkv.sh's argument checks, without torch: what a capture may write over.

A capture replaces its --out-dir whole, so the checks must refuse, before any model is loaded and with nothing of the
user's touched: an empty --out-dir, '.', '/', '~', the checkout and every directory above one of these; an earlier
capture that also holds the user's files; a manifest.json that is a FIFO (must not hang), a device, deeply nested or
huge. MODEL and --text are refused for what they are: a missing local path is not sent to the hub as a name, a --text
that is a directory, FIFO or device is named so. An earlier capture holding only a capture's files is accepted. The script resolves MODEL, --text and --out-dir
in the caller's directory (it does not cd to the checkout): run from another directory with relative paths, the
capture itself must start in that directory with those paths.

The shell script runs in a copy of the scripts whose build/capture-venv/bin/python is a stub (it imports nothing and
records its arguments and directory), so an argument check that wrongly passes reaches the stub, never a download.

  capture_args_check.py REPO_ROOT
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

TIMEOUT = 30  # seconds: a FIFO that is opened blocks forever; every check here takes well under a second


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def make_checkout(root, scratch):
    """A copy of the scripts, with a stub venv python that records its arguments and working directory."""
    checkout = os.path.join(scratch, "checkout")
    os.makedirs(os.path.join(checkout, "scripts"))
    for name in ("capture-qkv.sh", "capture_qkv.py", "torch_venv.sh", "deps.sh"):
        shutil.copy(os.path.join(root, "scripts", name), os.path.join(checkout, "scripts", name))
    bin_dir = os.path.join(checkout, "build", "capture-venv", "bin")
    os.makedirs(bin_dir)
    stub = os.path.join(bin_dir, "python")
    record = os.path.join(scratch, "stub-record.json")
    with open(stub, "w") as f:
        f.write("#!/bin/sh\n"
                "case \"$*\" in *'import numpy, torch, transformers'*) exit 0 ;; esac\n"
                f"/usr/bin/python3 -c 'import json, os, sys; json.dump({{\"cwd\": os.getcwd(), \"argv\": sys.argv[1:]}}, "
                f"open(\"{record}\", \"w\"))' \"$@\"\n")
    os.chmod(stub, 0o755)
    return checkout, record


def run(checkout, cwd, *args):
    try:
        return subprocess.run(["bash", os.path.join(checkout, "scripts", "capture-qkv.sh"), *args], cwd=cwd,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(f"capture-qkv.sh {' '.join(args)} did not finish within {TIMEOUT} s (a hang)")


def snapshot(directory):
    """Every path below directory with its size: what a refused run must leave as it was."""
    seen = {}
    for base, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(base, name)
            st = os.lstat(path)
            seen[path] = st.st_size if stat.S_ISREG(st.st_mode) else stat.S_IFMT(st.st_mode)
    return seen


def earlier_capture(path, *extra_files):
    os.makedirs(path)
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump({"format": "favorlab-capture-1", "layers": []}, f)
    for name in ("layer0_q.npy", "layer0_k.npy", "layer0_v.npy", "tokens.npy") + extra_files:
        with open(os.path.join(path, name), "w") as f:
            f.write("x")
    return path


def main(argv):
    if len(argv) != 2:
        print("usage: capture_args_check.py REPO_ROOT", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    scratch = tempfile.mkdtemp(prefix="capture-args-")
    try:
        checkout, record = make_checkout(root, scratch)
        caller = os.path.join(scratch, "caller")
        model = os.path.join(caller, "model")
        os.makedirs(model)
        with open(os.path.join(model, "config.json"), "w") as f:
            f.write("{}")
        with open(os.path.join(caller, "notes.txt"), "w") as f:
            f.write("the user's text\n")
        home = os.path.expanduser("~")

        # (out-dir, cwd, words the one-line refusal must contain)
        refused = [
            ("", caller, "--out-dir is empty"),
            (".", caller, "current directory"),
            (caller, caller, "current directory"),
            (os.path.dirname(caller), caller, "current directory"),
            ("/", caller, "the root"),
            ("~", caller, "'~' is not expanded"),
            (home, caller, "home directory"),
            (checkout, caller, "favorlab checkout"),
            (os.path.join(checkout, "scripts"), caller, "not empty and not an earlier capture"),
            (scratch, caller, "current directory"),
        ]
        notes = earlier_capture(os.path.join(caller, "with-notes"), "report.md")
        refused.append((notes, caller, "'report.md'"))
        fifo_dir = os.path.join(caller, "fifo")
        os.makedirs(fifo_dir)
        os.mkfifo(os.path.join(fifo_dir, "manifest.json"))
        refused.append((fifo_dir, caller, "not an earlier capture"))
        device_dir = os.path.join(caller, "device")
        os.makedirs(device_dir)
        os.symlink("/dev/zero", os.path.join(device_dir, "manifest.json"))
        refused.append((device_dir, caller, "not an earlier capture"))
        deep_dir = os.path.join(caller, "deep")
        os.makedirs(deep_dir)
        with open(os.path.join(deep_dir, "manifest.json"), "w") as f:
            f.write('{"format": "favorlab-capture-1", "scale": ' + "[" * 100000 + "]" * 100000 + "}")
        refused.append((deep_dir, caller, "not an earlier capture"))
        huge_dir = os.path.join(caller, "huge")
        os.makedirs(huge_dir)
        with open(os.path.join(huge_dir, "manifest.json"), "w") as f:
            f.write('{"format": "favorlab-capture-1", "pad": "' + "x" * (2 << 20) + '"}')
        refused.append((huge_dir, caller, "not an earlier capture"))

        for out_dir, cwd, expected in refused:
            before = snapshot(scratch)
            if os.path.exists(record):
                os.remove(record)
            done = run(checkout, cwd, "model", "--text", "notes.txt", "--out-dir", out_dir)
            lines = done.stderr.strip().splitlines()
            where = f"--out-dir {out_dir!r} from {cwd}"
            if done.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
                fail(f"{where}: expected exit 2 and one line naming {expected!r}, got {done.returncode}: {done.stderr!r}")
            if "Traceback" in done.stderr:
                fail(f"{where}: a traceback instead of a refusal")
            if os.path.exists(record):
                fail(f"{where}: refused, yet the capture started")
            if snapshot(scratch) != before:
                fail(f"{where}: a refused run changed files")

        # MODEL and --text refused for what they are: a local path that does not exist is never sent to the hub as a
        # name (OWNER/NAME where OWNER is a directory here, or more than one slash); a --text that is a directory, a
        # FIFO (must not hang) or a device is named as such, not "no such file".
        os.makedirs(os.path.join(caller, "models"))
        os.mkfifo(os.path.join(caller, "text-fifo"))
        inputs_refused = [
            (["models/tiny", "--text", "notes.txt"], "models/tiny: no such directory"),
            (["a/b/c", "--text", "notes.txt"], "a/b/c: no such directory"),
            (["model", "--text", "models"], "a directory, not a text file"),
            (["model", "--text", "text-fifo"], "not a regular file"),
            (["model", "--text", "/dev/zero"], "not a regular file"),
            (["model", "--text", "missing.txt"], "missing.txt: no such file"),
        ]
        for args, expected in inputs_refused:
            if os.path.exists(record):
                os.remove(record)
            done = run(checkout, caller, *args, "--out-dir", "out")
            lines = done.stderr.strip().splitlines()
            if done.returncode != 2 or len(lines) != 1 or expected not in lines[0] or os.path.exists(record):
                fail(f"{' '.join(args)}: expected exit 2 and one line naming {expected!r}, got {done.returncode}: "
                     f"{done.stderr!r}")
        refused.extend((None, caller, expected) for _, expected in inputs_refused)

        # Accepted: a new directory, relative to the caller; an earlier capture with only a capture's files. The
        # capture (the stub) starts in the caller's directory with the caller's relative paths.
        earlier_capture(os.path.join(caller, "again"))
        for out_dir in ("out", "again"):
            if os.path.exists(record):
                os.remove(record)
            done = run(checkout, caller, "model", "--text", "notes.txt", "--out-dir", out_dir)
            if done.returncode != 0:
                fail(f"--out-dir {out_dir} from {caller}: refused: {done.stderr.strip()}")
            with open(record) as f:
                seen = json.load(f)
            if seen["cwd"] != os.path.realpath(caller):
                fail(f"the capture ran in {seen['cwd']}, not in the caller's directory {caller}")
            if seen["argv"][-5:] != ["model", "--text", "notes.txt", "--out-dir", out_dir]:
                fail(f"the capture got the arguments {seen['argv']}, not the caller's relative paths")
        if len(os.listdir(os.path.join(caller, "again"))) != 5:
            fail("the argument check changed an earlier capture")
        print(f"capture-qkv.sh: {len(refused)} refusals (empty, '.', '/', '~', home, checkout and the directories above "
              "them, user files beside a capture, FIFO, device, deep and huge manifests; a missing local model, a "
              "--text that is not a regular file) and 2 acceptances: ok")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
