"""FG6xx, recompilation hazards: every rule example under real Dynamo (torch 2.13 CPU, backend="eager"),
counting compiles instead of graph breaks.

- a hazard example compiles more than once, as often as its finding says: up to the recompile limit (8)
  when the message says "on every call", twice when it says "once";
- its clean example compiles once;
- both return what plain Python returns.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import check_code, count_compiles, dedent

from fullgraph.model import WARNING
from fullgraph.rules import registry

torch = pytest.importorskip("torch")

EXAMPLES = [(r, i, ex) for r in registry.RULES if r.recompile for i, ex in enumerate(r.examples)]
LIMIT = 8  # torch._dynamo.config.recompile_limit


def _same(a, b) -> bool:
    return torch.allclose(a, b) if isinstance(a, torch.Tensor) else a == b


@pytest.mark.parametrize("rule,i,ex", EXAMPLES, ids=[f"{r.code}-{i}-{'hazard' if e.breaks else 'clean'}"
                                                    for r, i, e in EXAMPLES])
def test_example_recompiles_as_reported(rule, i, ex, tmp_path):
    findings = [f for f in check_code(ex.code, tmp_path) if f.code == rule.code]
    compiles, result = count_compiles(ex.code, ex.call)
    _, expected = count_compiles(ex.code, ex.call, eager=True)
    assert _same(result, expected), "compiled and eager results differ"
    if not ex.breaks:
        assert not findings
        assert compiles == 1, f"clean example compiled {compiles} times"
        return
    assert findings and all(f.severity == WARNING for f in findings)
    every = findings[0].data["every"]
    assert compiles == (LIMIT if every else 2), (compiles, findings[0].message)
    msg = findings[0].message
    assert ("on every call until" in msg or "for every new" in msg) == every


def _check(src: str, tmp_path) -> set[tuple[int, str]]:
    return {(f.span.start.line + 1, f.code) for f in check_code(dedent(src), tmp_path) if f.code.startswith("FG6")}


HEAD = """
        import torch
        import torch.nn as nn

        """


def test_warning_under_fullgraph_root_too(tmp_path):
    got = check_code(dedent(HEAD + """
        def scale(x, s):
            return x * s

        def main():
            f = torch.compile(scale, fullgraph=True, dynamic=False)
            for i in range(4):
                f(torch.ones(2), i)
        """), tmp_path)
    hazard = [f for f in got if f.code == "FG602"]
    assert hazard and hazard[0].severity == WARNING and hazard[0].span.start.line + 1 == 11


NEAR_MISSES = {
    "constant argument": """
        def scale(x, s):
            return x * s

        def main():
            f = torch.compile(scale, dynamic=False)
            for i in range(4):
                f(torch.ones(2), 2.0)
        """,
    "dynamic=True": """
        def scale(x, s):
            return x * s

        def main():
            f = torch.compile(scale, dynamic=True)
            for i in range(2, 6):
                f(torch.ones(i), i)
        """,
    "mark_dynamic": """
        def double(x):
            return x * 2

        def main():
            f = torch.compile(double)
            for i in range(2, 6):
                x = torch.ones(i)
                torch._dynamo.mark_dynamic(x, 0)
                f(x)
        """,
    "a new list each iteration, same length": """
        def total(xs):
            return sum(xs)

        def main():
            f = torch.compile(total)
            for i in range(4):
                xs = []
                xs.append(torch.ones(2) * i)
                f(xs)
        """,
    "counter in a buffer": """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("step", torch.zeros((), dtype=torch.long))

            def forward(self, x):
                self.step += 1
                return x * 2

        def main():
            m = torch.compile(M())
            for i in range(4):
                m(torch.ones(2))
        """,
    "attribute mutated outside compiled code": """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.calls = 0

            def forward(self, x):
                return x * 2

            def log(self):
                self.calls += 1

        def main():
            m = M()
            f = torch.compile(m)
            for i in range(4):
                f(torch.ones(2))
                m.log()
        """,
    "global the compiled code does not read": """
        STEP = 0

        def double(x):
            return x * 2

        def main():
            global STEP
            f = torch.compile(double)
            for i in range(4):
                STEP += 1
                f(torch.ones(2))
        """,
    "called once, outside a loop": """
        def scale(x, s):
            return x * s

        def main():
            f = torch.compile(scale, dynamic=False)
            lr = 0.1
            lr *= 0.5
            return f(torch.ones(2), lr)
        """,
    "the same function compiled in a loop": """
        def step(x, w):
            return torch.relu(x @ w)

        def main():
            w = torch.ones(2, 2)
            for i in range(4):
                f = torch.compile(step)
                f(torch.ones(2, 2), w)
        """,
    "the same closure compiled in a loop": """
        def make(lr):
            def update(p):
                return p * lr
            return update

        def main():
            for i in range(4):
                f = torch.compile(make(0.5))
                f(torch.ones(2))
        """,
    "a fixed dtype and grad mode": """
        def double(x):
            return x * 2

        def main():
            f = torch.compile(double)
            for i in range(4):
                with torch.no_grad():
                    f(torch.ones(2, dtype=torch.float64))
        """,
    "a plain object's attribute reset to what does not change": """
        class Trainer:
            def __init__(self, base=0.99):
                self.base = base
                self.momentum = base
                self.ema = torch.compile(self.update)

            def update(self, x):
                return x * self.momentum

            def step(self, s, x):
                self.momentum = self.base
                return self.ema(x)

        def main():
            t = Trainer()
            for s in range(6):
                t.step(s, torch.ones(4))
        """,
    "a plain object's counter its compiled method does not read": """
        class Runner:
            def __init__(self):
                self.step = 0
                self.run = torch.compile(self.fwd)

            def fwd(self, x):
                return x * 2

            def tick(self, x):
                self.step += 1
                return self.run(x)

        def main():
            r = Runner()
            for _ in range(6):
                r.tick(torch.ones(4))
        """,
    "a plain object's attribute that is a tensor": """
        class Trainer:
            def __init__(self):
                self.momentum = torch.tensor(0.99)
                self.ema = torch.compile(self.update)

            def update(self, x):
                return x * self.momentum

            def step(self, s, x):
                self.momentum = torch.tensor(1 - 0.01 * s)
                return self.ema(x)

        def main():
            t = Trainer()
            for s in range(6):
                t.step(s, torch.ones(4))
        """,
    "a helper that draws values, not sizes": """
        def scale(x):
            return x * 2

        def make(g):
            n = int(torch.randint(2, 9, (1,), generator=g))
            return torch.randn(4, 8, generator=g) * n

        def main():
            f = torch.compile(scale)
            g = torch.Generator().manual_seed(3)
            for _ in range(6):
                x = make(g)
                f(x)
        """,
    "a random crop resized to a fixed size": """
        import random
        import torch.nn.functional as F

        class Crop:
            def __init__(self, seed=0):
                self.rng = random.Random(seed)

            def __call__(self, img):
                s = self.rng.randint(4, 15)
                return F.interpolate(img[None, :, :s, :s], size=(8, 8))[0]

        def scale(x):
            return x * 2

        def main():
            crop = Crop()
            f = torch.compile(scale, dynamic=False)
            img = torch.ones(3, 16, 16)
            for _ in range(12):
                patch = crop(img)
                f(patch)
        """,
    "a random crop of a fixed size": """
        import random

        class RandomCrop:
            def __init__(self, size=8, seed=0):
                self.size = size
                self.rng = random.Random(seed)

            def __call__(self, img):
                top = self.rng.randint(0, img.shape[1] - self.size)
                left = self.rng.randint(0, img.shape[2] - self.size)
                return img[:, top:top + self.size, left:left + self.size]

        def scale(x):
            return x * 2

        def main():
            crop = RandomCrop()
            f = torch.compile(scale, dynamic=False)
            img = torch.arange(3 * 16 * 16.).reshape(3, 16, 16)
            for _ in range(12):
                f(crop(img))
        """,
    "a sliding window of a fixed length": """
        def scale(x):
            return x * 2

        def main():
            f = torch.compile(scale, dynamic=False)
            seq = torch.arange(40.)
            for i in range(0, 32, 4):
                f(seq[i:i + 8])
        """,
    "a helper given what changes, returning a fixed size": """
        def make(n):
            return torch.ones(4, 4) * n

        def scale(x):
            return x * 2

        def main():
            f = torch.compile(scale)
            for n in range(2, 8):
                x = make(n)
                f(x)
        """,
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_silent(name, tmp_path):
    src = HEAD + NEAR_MISSES[name]
    assert _check(src, tmp_path) == set()
    compiles, _ = count_compiles(dedent(src), "main()")
    assert compiles == 1, f"Dynamo compiled {compiles} times: not a near miss"


HAZARDS = {
    # (source, [(line, code)], compiles)
    "schedule float, dynamic=False": ("""
        def step(x, lr):
            return x * lr

        def main():
            f = torch.compile(step, dynamic=False)
            lr = 0.1
            for i in range(10):
                lr = lr * 0.9
                f(torch.ones(2), lr=lr)
        """, [(13, "FG602")], LIMIT),
    "global float in a module-level loop": ("""
        TEMP = 1.0

        def soften(x):
            return x / TEMP

        f = torch.compile(soften)
        for i in range(10):
            TEMP = 1.0 + i
            f(torch.ones(2))
        """, [(12, "FG603")], 2),
    "closure int": ("""
        def main():
            k = 1

            def h(x):
                return x * k

            f = torch.compile(h)
            for i in range(10):
                k = i + 1
                f(torch.ones(2))
        """, [(13, "FG603")], 2),
    "int attribute set between calls": ("""
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.k = 1

            def forward(self, x):
                return x * self.k

        def main():
            m = M()
            f = torch.compile(m)
            for i in range(10):
                m.k = i
                f(torch.ones(2))
        """, [(17, "FG601")], LIMIT),
    "list sliced by the loop variable": ("""
        def total(xs):
            return sum(xs)

        def main():
            f = torch.compile(total)
            xs = [torch.ones(2) for _ in range(12)]
            for i in range(1, 11):
                f(xs[:i])
        """, [(12, "FG604")], LIMIT),
    "int the compiled function loops over": ("""
        def refine(x, n):
            for _ in range(n):
                x = x * 0.5
            return x

        def main():
            f = torch.compile(refine)
            for i in range(1, 11):
                f(torch.ones(2), i)
        """, [(13, "FG602")], LIMIT),
    "global dict item": ("""
        CONFIG = {"scale": 1.0}

        def head(x):
            return x * CONFIG["scale"]

        def main():
            f = torch.compile(head)
            for i in range(10):
                CONFIG["scale"] = 1.0 + i
                f(torch.ones(2))
        """, [(13, "FG603")], 2),
    "closure through nonlocal": ("""
        def make():
            depth = 1

            def step(x):
                for _ in range(depth):
                    x = x * 0.9
                return x

            def deeper():
                nonlocal depth
                depth += 1
            return step, deeper

        def main():
            step, deeper = make()
            f = torch.compile(step)
            for _ in range(10):
                f(torch.ones(2))
                deeper()
        """, [(15, "FG603")], LIMIT),
    "grad mode toggled": ("""
        def double(x):
            return x * 2

        def main():
            f = torch.compile(double)
            x = torch.ones(2, requires_grad=True)
            for i in range(6):
                if i % 2:
                    with torch.no_grad():
                        f(x)
                else:
                    f(x)
        """, [(13, "FG609")], 2),
    "requires_grad that changes": ("""
        def double(x):
            return x * 2

        def main():
            f = torch.compile(double)
            for i in range(6):
                x = torch.ones(2, requires_grad=i % 2 == 1)
                f(x)
        """, [(11, "FG609")], 2),
    "compile of a closure over the loop's value": ("""
        def make(lr):
            def update(p):
                return p * lr
            return update

        def main():
            for i in range(10):
                f = torch.compile(make(0.1 * (i + 1)))
                f(torch.ones(2))
        """, [(12, "FG608")], 2),
    "an item of a schedule list": ("""
        def step(x, stage):
            return x * stage

        def main():
            f = torch.compile(step, dynamic=False)
            schedule = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]
            for it, stage in enumerate(schedule):
                f(torch.ones(2), stage)
        """, [(12, "FG602")], LIMIT),
    "a tensor grown with torch.cat": ("""
        def last(x):
            return x.sum(1)

        def main():
            f = torch.compile(last)
            idx = torch.ones(1, 2)
            for _ in range(6):
                f(idx)
                idx = torch.cat([idx, torch.ones(1, 1)], dim=1)
        """, [(13, "FG606")], 2),
    "a key of a list of dict literals": ("""
        REQUESTS = [{"t": 0.5}, {"t": 1.0}, {"t": 1.5}]

        def scale(x, t):
            return x / t

        def main():
            f = torch.compile(scale, dynamic=False)
            for req in REQUESTS:
                f(torch.ones(2), req["t"])
        """, [(13, "FG602")], 3),
    "a list an evaluator grows per call": ("""
        def stats(scores):
            return torch.stack(scores).mean()

        class Evaluator:
            def __init__(self):
                self.scores = []
                self.stats = torch.compile(stats)

            def update(self, x):
                self.scores.append(x.mean())
                return self.stats(self.scores)

        def main():
            ev = Evaluator()
            for _ in range(10):
                ev.update(torch.ones(2))
        """, [(15, "FG604")], LIMIT),
    "a new module per episode from what changes": ("""
        class Head(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n

            def forward(self, x):
                return x[: self.n].sum()

        def apply(head, x):
            return head(x)

        def main():
            f = torch.compile(apply)
            x = torch.ones(12)
            for episode in range(10):
                n = 2 + episode
                head = Head(n)
                f(head, x)
        """, [(22, "FG607")], LIMIT),
    "a plain object's float attribute its compiled method reads": ("""
        import math

        class Trainer:
            def __init__(self, base=0.99):
                self.base = base
                self.momentum = base
                self.ema = torch.compile(self.update)

            def update(self, x):
                return x * self.momentum

            def step(self, s, x):
                self.momentum = 1 - (1 - self.base) * (math.cos(math.pi * s / 10) + 1) / 2
                return self.ema(x)

        def main():
            t = Trainer()
            for s in range(10):
                t.step(s, torch.ones(4))
        """, [(17, "FG601")], 2),
    "a plain object's int counter its compiled method loops over": ("""
        class Runner:
            def __init__(self):
                self.step = 0
                self.run = torch.compile(self.fwd)

            def fwd(self, x):
                for _ in range(self.step):
                    x = x * 2
                return x

            def tick(self, x):
                self.step += 1
                return self.run(x)

        def main():
            r = Runner()
            for _ in range(10):
                r.tick(torch.ones(4))
        """, [(16, "FG601")], LIMIT),
    "sizes drawn by a helper the loop calls": ("""
        def total(x, y):
            return x.sum() + y.sum()

        def random_batch(g):
            xs = []
            for i in range(3):
                n = int(torch.randint(2, 9, (1,), generator=g))
                xs.append(torch.randn(n, 4, generator=g))
            return torch.cat(xs), torch.ones(3)

        def main():
            f = torch.compile(total)
            g = torch.Generator().manual_seed(3)
            for _ in range(6):
                x, y = random_batch(g)
                f(x, y)
        """, [(19, "FG606")], 2),
    "a random crop in a transform object's __call__, dynamic=False": ("""
        import random

        class Crop:
            def __init__(self, seed=0):
                self.rng = random.Random(seed)

            def __call__(self, img):
                s = self.rng.randint(4, 15)
                return img[:, :s, :s]

        def scale(x):
            return x * 2

        def main():
            crop = Crop()
            f = torch.compile(scale, dynamic=False)
            img = torch.ones(3, 16, 16)
            for _ in range(12):
                patch = crop(img)
                patch = f(patch)
        """, [(23, "FG605")], LIMIT),
    "a helper given a size that changes": ("""
        def make(n):
            return torch.randn(n, 4)

        def scale(x):
            return x * 2

        def main():
            f = torch.compile(scale)
            for n in range(2, 8):
                x = make(n)
                f(x)
        """, [(14, "FG606")], 2),
}


@pytest.mark.parametrize("name", list(HAZARDS))
def test_hazard_found_where_dynamo_recompiles(name, tmp_path):
    src, where, n = HAZARDS[name]
    src = HEAD + src
    assert _check(src, tmp_path) == set(where)
    call = "main()" if "def main" in src else "None"
    compiles, _ = count_compiles(dedent(src), call)
    assert compiles == n


# the compiled module's class defined in another file (nets.py): the loop that calls it sets an attribute,
# a hazard only when the class reads it (nanoGPT's `model.require_backward_grad_sync = ...`, which GPT never
# reads: Dynamo compiles once)
NETS = """
    import torch.nn as nn


    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 1
            self.scale = 1.0
            self.sync = True

        def forward(self, x):
            return x * self.k * self.scale


    class Net(Scaled):
        pass
    """

CROSS_FILE = {
    # (source importing `nets`, [(line, code)], compiles)
    "a bool the class never reads": ("""
        from nets import Net

        def main():
            model = Net()
            model = torch.compile(model)
            steps = 4
            for it in range(3):
                for micro_step in range(steps):
                    model.sync = micro_step == steps - 1
                    model(torch.ones(2))
        """, [], 1),
    "an int the class reads in forward": ("""
        from nets import Scaled

        def main():
            m = Scaled()
            f = torch.compile(m)
            for i in range(10):
                m.k = i
                f(torch.ones(2))
        """, [(11, "FG601")], LIMIT),
    "a float the base class's forward reads": ("""
        from nets import Net

        def main():
            model = torch.compile(Net())
            for i in range(10):
                model.scale = 1.0 + i
                model(torch.ones(2))
        """, [(10, "FG601")], 2),
    # the class is not the project's (torch's own): what it reads is not known, no finding
    "an int set on a torch module": ("""
        def main():
            model = torch.compile(nn.Linear(2, 2))
            for i in range(10):
                model.step = i
                model(torch.ones(2))
        """, [], 1),
}


@pytest.mark.parametrize("name", list(CROSS_FILE))
def test_attribute_set_on_a_module_of_another_file(name, tmp_path, monkeypatch):
    from fullgraph.api import Workspace
    from fullgraph.config import Config

    src, where, n = CROSS_FILE[name]
    src = dedent(HEAD + src)
    (tmp_path / "nets.py").write_text(dedent(NETS))
    (tmp_path / "train.py").write_text(src)
    ws = Workspace(Config(project_root=str(tmp_path)))
    got = ws.check([tmp_path / "nets.py", tmp_path / "train.py"]).findings
    assert {(f.span.start.line + 1, f.code) for f in got if f.code.startswith("FG6")} == set(where)
    assert all(f.path.endswith("train.py") for f in got if f.code.startswith("FG6"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nets", raising=False)
    try:
        compiles, _ = count_compiles(src, "main()")
    finally:
        sys.modules.pop("nets", None)
    assert compiles == n


def test_cli_select_fg6_json_and_sarif(tmp_path):
    ex = next(e for r, _, e in EXAMPLES if r.code == "FG601" and e.breaks)
    p = tmp_path / "model.py"
    p.write_text(ex.code)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "server")}
    run = lambda *a: subprocess.run([sys.executable, "-m", "fullgraph", *a], capture_output=True, text=True,  # noqa: E731
                                    env=env, cwd=tmp_path)
    out = json.loads(run("check", str(p), "--format", "json", "--select", "FG6", "--no-cache").stdout)
    codes = [(f["code"], f["severity"]) for f in out["diagnostics"]]
    assert codes == [("FG601", "warning")]
    sarif = json.loads(run("check", str(p), "--format", "sarif", "--select", "FG6", "--no-cache").stdout)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["warning"]
    r = run("explain", "FG601")
    assert "Why it recompiles" in r.stdout and "register_buffer" in r.stdout


FIXED = {"unspec-int-config": 2}  # one more compile, then the int is dynamic (Dynamo 2.13); every other fix: 1


def _fix_cases():
    out = []
    for r, i, ex in EXAMPLES:
        for fid in r.fixes:
            if ex.breaks and fid != "suppress":
                out.append((r.code, i, fid, ex))
    return out


@pytest.mark.parametrize("code,i,fid,ex", _fix_cases(), ids=[f"{c}-{i}-{f}" for c, i, f, _ in _fix_cases()])
def test_fix_compiles_once_with_the_eager_result(code, i, fid, ex, tmp_path):
    from fullgraph.fixes.base import TextEdit, apply_edits

    hits = [f for f in check_code(ex.code, tmp_path) if f.code == code and any(x.id == fid for x in f.fixes)]
    assert hits, f"{fid} not offered for {code}"
    fixed = apply_edits(ex.code, [TextEdit.from_data(d) for d in hits[0].data["fix_edits"][fid]])
    assert fixed != ex.code
    assert not [f for f in check_code(fixed, tmp_path) if f.code == code and fid != "unspec-int-config"], \
        fixed
    compiles, result = count_compiles(fixed, ex.call)
    _, expected = count_compiles(ex.code, ex.call, eager=True)
    assert compiles == FIXED.get(fid, 1), fixed
    assert _same(torch.as_tensor(result).float(), torch.as_tensor(expected).float()), fixed


def test_fixes_keep_the_rest_of_the_line(tmp_path):
    from fullgraph.fixes.base import TextEdit, apply_edits

    src = dedent(HEAD + """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.step = 0  # counts calls

            def forward(self, x):
                self.step += 1
                return x * 2
        def main():
            m = torch.compile(M())
            for i in range(3):
                m(torch.ones(2))
        """)
    f = next(f for f in check_code(src, tmp_path) if f.code == "FG601")
    fixed = apply_edits(src, [TextEdit.from_data(d) for d in f.data["fix_edits"]["counter-buffer"]])
    assert 'self.register_buffer("step", torch.tensor(0), persistent=False)  # counts calls' in fixed


def test_an_argument_the_compiled_function_never_reads_is_no_hazard(tmp_path):
    src = HEAD + """
        def double(x, step):
            return x * 2

        def main():
            f = torch.compile(double, dynamic=False)
            for i in range(10):
                f(torch.ones(2), i)
        """
    assert _check(src, tmp_path) == set()
    compiles, _ = count_compiles(dedent(src), "main()")
    assert compiles == 1  # Dynamo guards only on what it reads
