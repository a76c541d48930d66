"""The user scripts the benchmark checks, ``scripts/<model>_<mode>.py``: rendered from ``models.py`` (its model
table and its templates, ``render_script``) at run time into the git-ignored ``scripts/`` folder.

    .venv/bin/python bench/realworld/user_scripts.py            # all 283 into bench/realworld/scripts/
    .venv/bin/python bench/realworld/user_scripts.py /tmp/dir   # elsewhere (e.g. to look at or diff them)

run_models.py writes the scripts of the models it runs before each pass (truth.json and static.json name
them by their path, ``bench/realworld/scripts/<model>_<mode>.py``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common import SCRIPTS, tag_of
from models import BY_NAME, MODELS, render_script


def write_scripts(names: list[str], directory: Path = SCRIPTS) -> None:
    """Write the scripts of `names` (every mode) into `directory`, rewriting only those whose text changed;
    remove the scripts of models no longer in models.py."""
    directory.mkdir(parents=True, exist_ok=True)
    every = {f"{tag_of(m.name, mode)}.py" for m in MODELS for mode in m.modes}
    for p in directory.glob("*.py"):  # scripts of models no longer in models.py
        if p.name not in every:
            p.unlink()
    for name in names:
        for mode in BY_NAME[name].modes:
            p = directory / f"{tag_of(name, mode)}.py"
            text = render_script(BY_NAME[name], mode)
            if not p.exists() or p.read_text() != text:
                p.write_text(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=SCRIPTS, help="folder (default: bench/realworld/scripts)")
    args = ap.parse_args()
    write_scripts([m.name for m in MODELS], args.out)
    print(f"{sum(len(m.modes) for m in MODELS)} scripts in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
