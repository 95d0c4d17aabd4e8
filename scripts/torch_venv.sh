# Sourced by scripts/peer-bench.sh and scripts/capture-qkv.sh: creates a venv with PyPI's torch but not triton.
# Why lean: PyPI's Linux torch is the CUDA build; its nvidia-* wheels must come along (libtorch links them), but triton
# (torch.compile's compiler, about 1 GB installed) is never imported here. So torch goes in with --no-deps, then every
# requirement its own metadata lists except triton and the optional extras (pip evaluates the environment markers).
# Needs: the caller's `say` function. Usage: torch_venv_create VENV_DIR (then install the rest with VENV_DIR/bin/python).
torch_venv_create() {
  local venv="$1" tmp
  local py="$venv/bin/python"
  bash "$(dirname "${BASH_SOURCE[0]}")/deps.sh" python3-venv  # Debian's python3 has no venv module (ensurepip) without it
  /usr/bin/python3 -m venv "$venv"
  local pip=("$py" -m pip install --disable-pip-version-check --progress-bar off --quiet)
  tmp=$(mktemp -d)
  say "pip: torch (--no-deps)"
  "${pip[@]}" --no-deps torch >&2
  "$py" - >"$tmp/torch-requirements.txt" <<'PY'
import importlib.metadata
import re
for requirement in importlib.metadata.requires("torch") or []:
    name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-")
    if name != "triton" and "extra ==" not in requirement.replace("'", '"'):
        print(requirement)
PY
  say "pip: torch's requirements but triton ($(wc -l <"$tmp/torch-requirements.txt") entries: the nvidia-*" \
    "libraries torch links, sympy, networkx, ...; pip will say that triton is missing: intended)"
  "${pip[@]}" -r "$tmp/torch-requirements.txt" >&2
  rm -rf "$tmp"
}
