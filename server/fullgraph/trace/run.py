"""Running a command under capture: bootstrap directory, environment, exit code, merge.

    record, exit_code = run_command(["python", "train.py"])

The command runs with the caller's stdin/stdout/stderr (nothing is captured or reordered) and the
caller's environment plus two changes, both only for the command and its children:

* ``PYTHONPATH`` gets a temporary directory in front, holding ``sitecustomize.py`` and
  ``_fullgraph_trace_hook.py`` (see `_hook.py`): every Python process started by the command (and
  their children, which inherit the environment) installs the recorder at startup, then runs
  the ``sitecustomize`` it shadows, if any.  Processes started with ``-I``, ``-E`` or ``-S`` do not.
* ``FULLGRAPH_TRACE_PARTS`` names a temporary directory where each process appends its part file.

The temporary directory is removed afterwards; nothing is written in the user's project but the
record.  The parent ignores SIGINT while the command runs (the terminal delivers it to the command,
which decides), forwards SIGTERM/SIGHUP to it, and always merges whatever the parts hold.
"""
from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from . import _hook
from .collect import build_record, process_from_part_file
from .record import Record, now

HOOK_MODULE = "_fullgraph_trace_hook"


class CommandNotFound(Exception):
    pass


def make_bootstrap(tmp: str) -> tuple[str, str]:
    """Create <tmp>/boot (sitecustomize + hook) and <tmp>/parts. Returns (boot, parts)."""
    here = Path(__file__).parent
    boot = os.path.join(tmp, "boot")
    parts = os.path.join(tmp, "parts")
    os.makedirs(boot)
    os.makedirs(parts)
    shutil.copyfile(here / "_hook.py", os.path.join(boot, HOOK_MODULE + ".py"))
    shutil.copyfile(here / "_sitecustomize.py", os.path.join(boot, "sitecustomize.py"))
    return boot, parts


def capture_env(boot: str, parts: str, base: dict | None = None) -> dict:
    env = dict(os.environ if base is None else base)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = boot + (os.pathsep + old if old else "")
    env[_hook.ENV_PARTS] = parts
    return env


def exit_status(returncode: int) -> int:
    """Popen returncode -> what a shell would report (128+N for a signal)."""
    return 128 - returncode if returncode < 0 else returncode


def run_command(command: list[str], cwd: str | None = None) -> tuple[Record, int, int]:
    """Run `command` under capture. Returns (record, exit status, number of Python processes hooked)."""
    if not command:
        raise ValueError("no command")
    tmp = tempfile.mkdtemp(prefix="fullgraph-trace-")
    try:
        boot, parts = make_bootstrap(tmp)
        env = capture_env(boot, parts)
        started = now()
        try:
            proc = subprocess.Popen(command, env=env, cwd=cwd)
        except FileNotFoundError:
            raise CommandNotFound(command[0]) from None
        except PermissionError:
            raise CommandNotFound(f"{command[0]} (not executable)") from None
        returncode = _wait(proc)
        finished = now()
        files = sorted(glob.glob(os.path.join(parts, "*.jsonl")))
        procs = [process_from_part_file(f) for f in files]
        record = build_record(procs, source="live", command=list(command), exit_code=exit_status(returncode),
                              started=started, finished=finished)
        return record, exit_status(returncode), len(files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _wait(proc: subprocess.Popen) -> int:
    forwarded = {}

    def forward(signum, _frame):
        try:
            proc.send_signal(signum)
        except OSError:
            pass

    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
        if sig is not None:
            try:
                forwarded[sig] = signal.signal(sig, forward)
            except (ValueError, OSError):
                pass
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # pragma: no cover - SIGINT is ignored while waiting
                continue
    finally:
        signal.signal(signal.SIGINT, old_int)
        for sig, handler in forwarded.items():
            signal.signal(sig, handler)
