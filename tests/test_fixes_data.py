"""What the user sees for the data-dependent, random-draw and tensor-state remedies: the offers (ids,
titles, safety) and the fixed text (asserts.py, tensorcond.py, rng.py, onehot.py, disabled.py)."""
from __future__ import annotations

from harness import check_code, dedent

from fullgraph.fixes.base import TextEdit, apply_edits


def offers(code: str) -> dict[str, dict[str, tuple[str, bool]]]:
    """{"FGnnn@line": {fix id: (title, safe)}} (lines as in `code` after dedent, 1-based)."""
    out = {}
    for f in check_code(dedent(code)):
        out[f"{f.code}@{f.span.start.line + 1}"] = {r.id: (r.title, r.safe) for r in f.fixes}
    return out


def fixed(code: str, fix_id: str, finding_code: str) -> str:
    code = dedent(code)
    for f in check_code(code):
        if f.code == finding_code and any(r.id == fix_id for r in f.fixes):
            return apply_edits(code, [TextEdit.from_data(d) for d in f.data["fix_edits"][fix_id]])
    raise AssertionError(f"{fix_id} not offered for {finding_code}: {offers(code)}")


def test_tensor_assert_splits_and_and_keeps_the_message():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(probs):
            assert torch.all(probs >= 0) and torch.all(probs <= 1), "out of range"  # check
            return probs
        """
    o = offers(code)["FG301@5"]
    title, safe = o["tensor-assert"]
    assert not safe and "one by one" in title and "RuntimeError when compiled" in title
    # the rewrite first, then keeping the check out of the graph (split), then suppress
    assert list(o) == ["tensor-assert", "split", "suppress"]
    new = fixed(code, "tensor-assert", "FG301")
    assert '    assert torch.all(probs >= 0), "out of range"\n    assert torch.all(probs <= 1), "out of range"\n' in new


def test_tensor_assert_not_and_torch_assert():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            assert not torch.isnan(x).any(), "nan"
            return x
        """
    assert 'assert torch.logical_not(torch.isnan(x).any()), "nan"' in fixed(code, "tensor-assert", "FG301")
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            torch._assert((x > -100).all(), "values out of range")
            return x + 1
        """
    assert '    assert (x > -100).all(), "values out of range"\n' in fixed(code, "tensor-assert", "FG310")


def test_tensor_assert_keeps_python_operands_as_asserts():
    code = """\
        import torch

        STRICT = True

        @torch.compile(fullgraph=True)
        def f(x):
            assert x.max() < 10 and STRICT, "range"
            return x
        """
    new = fixed(code, "tensor-assert", "FG301")
    assert '    assert x.max() < 10, "range"\n    assert STRICT, "range"\n' in new


def test_tensor_assert_gives_up_on_an_operand_it_cannot_place():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x, flag):
            assert torch.all(x >= 0) and flag, "range"
            return x
        """
    assert "tensor-assert" not in offers(code)["FG301@5"]


def test_assert_async_with_a_python_flag_keeps_the_flag_as_an_if():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x, check: bool = True):
            if check and torch.isnan(x).any():
                raise ValueError("nan in input")
            return x
        """
    new = fixed(code, "assert-async", "FG301")
    assert '    if check:\n        torch._assert_async(torch.logical_not(torch.isnan(x).any()), "nan in input")\n' in new


def test_assert_async_or_of_tensors_uses_de_morgan():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            if not torch.isfinite(x).all() or x.sum() > 1e6:
                raise RuntimeError("bad")
            return x
        """
    new = fixed(code, "assert-async", "FG301")
    assert 'torch._assert_async(torch.logical_and(torch.isfinite(x).all(), torch.logical_not(x.sum() > 1e6)), "bad")' \
        in new


def test_no_fix_draws_a_float_dynamo_replays():
    """`random.uniform` is traced by Dynamo, but inductor on torch 2.13 (CPU) computes with a garbage value
    (`x * random.uniform(0, 1)` ~ 1e34; found by the oracle's inductor run): no fix turns `random.random()`
    into a replayed float draw, in an expression or in a branch: torch's generator is used instead."""
    plain = """\
        import random
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            return x * random.random()
        """
    branch = """\
        import random
        import torch

        class Flip(torch.nn.Module):
            def forward(self, img):
                if random.random() < 0.5:
                    return img.flip(-1)
                return img

        m = torch.compile(Flip(), fullgraph=True)
        """
    for code in (plain, branch):
        o = offers(code)["FG108@6"]
        assert "numpy-random" not in o and all("uniform" not in title for title, _ in o.values())
    # torch's generator instead: right on every backend, another stream (the titles say so)
    title, safe = offers(plain)["FG108@6"]["torch-rand"]
    assert not safe and "another random stream" in title
    assert "return x * torch.rand(())" in fixed(plain, "torch-rand", "FG108")
    title, safe = offers(branch)["FG108@6"]["random-where"]
    assert not safe and "torch's generator instead" in title and "evaluates both branches" in title
    new = fixed(branch, "random-where", "FG108")
    assert "        return torch.where(torch.as_tensor(torch.rand(()) < 0.5), img.flip(-1), img)\n" in new


def test_an_integer_draw_in_a_branch_becomes_torch_where():
    code = """\
        import random
        import torch

        class Flip(torch.nn.Module):
            def forward(self, img):
                if np.random.randint(0, 2) == 0:
                    return img.flip(-1)
                return img

        m = torch.compile(Flip(), fullgraph=True)
        """
    code = code.replace("import random", "import random\n        import numpy as np")
    title, safe = offers(code)["FG108@7"]["random-where"]
    assert not safe and "Python's generator instead of NumPy's" in title
    new = fixed(code, "random-where", "FG108")
    assert "return torch.where(torch.as_tensor(random.randrange(0, 2) == 0), img.flip(-1), img)" in new


def test_numpy_random_titles_say_the_stream_changes():
    code = """\
        import numpy as np
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            idx = np.random.permutation(x.shape[0])
            return x[idx] * np.random.uniform(0.9, 1.1)
        """
    o = offers(code)
    title, safe = o["FG108@6"]["numpy-random"]
    assert not safe and "another random stream" in title and "torch.rand(x.shape[0]).argsort()" in title
    new = fixed(code, "numpy-random", "FG108")
    assert "idx = torch.rand(x.shape[0]).argsort()" in new  # not torch.randperm: inductor 2.13 fails on it
    lines = dedent(code).splitlines()
    scalar = code.replace(lines[5].strip(), "idx = torch.arange(x.shape[0])")
    assert "numpy-random" not in offers(scalar)["FG108@7"]  # a float draw: torch-rand instead
    assert "x[idx] * (0.9 + (1.1 - 0.9) * torch.rand(()))" in fixed(scalar, "torch-rand", "FG108")


def test_numpy_random_gives_up_when_the_draw_is_used_as_an_int():
    code = """\
        import numpy as np
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            area = np.random.uniform(0.1, 0.3) * x.shape[0]
            n = int(area)
            return x[:n]
        """
    assert "numpy-random" not in offers(code).get("FG108@6", {})


def test_num_classes_from_a_local_or_an_attribute_and_never_guessed():
    code = """\
        import torch
        import torch.nn.functional as F

        @torch.compile(fullgraph=True)
        def f(x, target):
            num_classes = x.size(-1)
            return F.one_hot(target).float() * x
        """
    new = fixed(code, "num-classes", "FG307")
    assert "F.one_hot(target, num_classes=num_classes).float()" in new
    code = """\
        import torch
        import torch.nn.functional as F

        class Head(torch.nn.Module):
            def __init__(self, n_classes=5):
                super().__init__()
                self.n_classes = n_classes

            def forward(self, labels):
                return F.one_hot(labels) * 2

        m = torch.compile(Head(), fullgraph=True)
        """
    assert "F.one_hot(labels, num_classes=self.n_classes) * 2" in fixed(code, "num-classes", "FG307")
    code = """\
        import torch
        import torch.nn.functional as F

        @torch.compile(fullgraph=True)
        def f(x):
            return F.one_hot(x) * 2
        """
    assert list(offers(code)["FG307@6"]) == ["suppress"]


def test_reorderable_disabled_registers_after_the_definition():
    code = """\
        import torch

        HISTORY = []


        @torch.compiler.disable
        def record(name, t):
            HISTORY.append((name, float(t.mean())))


        class M(torch.nn.Module):
            def forward(self, x):
                h = x.relu()
                record("h", h)
                return h * 2


        m = torch.compile(M(), fullgraph=True)
        """
    o = offers(code)["FG202@14"]
    assert not o["reorderable-disabled"][1] and "after the graph" in o["reorderable-disabled"][0]
    new = fixed(code, "reorderable-disabled", "FG202")
    assert "    HISTORY.append((name, float(t.mean())))\n\n\ntorch._dynamo.config.reorderable_logging_functions" \
           ".add(record)\n" in new


def test_reorderable_disabled_not_for_values_used_or_containers():
    code = """\
        import torch

        @torch.compiler.disable
        def record(xs):
            print(len(xs))

        @torch.compile(fullgraph=True)
        def f(x):
            xs = [x, x]
            record(xs)
            return x
        """
    assert "reorderable-disabled" not in offers(code)["FG202@10"]


def test_seed_guard_title_says_compiled_runs_are_not_reseeded():
    code = """\
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            torch.manual_seed(0)
            return x + torch.rand(4)
        """
    title, safe = offers(code)["FG204@5"]["seed-guard"]
    assert not safe and "not reseeded" in title
    assert "    if not torch.compiler.is_compiling():\n        torch.manual_seed(0)\n" in \
        fixed(code, "seed-guard", "FG204")
