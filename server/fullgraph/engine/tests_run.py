"""Tests of a followed library decided by running its function on the values the walk gives the parameters
(issue 27): the shape of a tensor the user's script makes, the constants the calls pass, the config fields.

BigBird's `BigBirdModel.forward` takes `input_ids` and computes `input_shape = input_ids.size()`, `batch_size,
seq_length = input_shape`, `max_tokens_to_attend = (5 + 2 * self.config.num_random_blocks) *
self.config.block_size`, then tests `if self.attention_type == "block_sparse" and seq_length <=
max_tokens_to_attend:` (a short-sequence fallback with a `logger.warning`).  With `input_ids = torch.randint(3,
100, (2, 32))` in the script and `BigBirdConfig(block_size=2, num_random_blocks=2)`, the test is `32 <= 18`:
false, and the fallback is not on the run's path.  Dynamo specialises the sizes of the tensors it is given into
ints in the first compile (a second call with another size recompiles; the walk keeps a shape only when every
visible call passes the same one: conditions_evaluated._distinct).

The analyser records such a test, or an `and`/`or`/`not` operand of it, as the "expr" atom test ("run", line,
column, end line, end column) (conditions_recorded._run_test); the walk evaluates it (conditions_evaluated.evaluate,
inside a library only) through the reader of `self.<attr>` (Arrivals.self_attr_reader: `read.run_test`), which
calls run_test here: the function runs in engine/consteval.py with its parameters set from the walk's env (a tensor
with a known shape: consteval.Tensor; another passed instance: consteval.OPAQUE, not None; a constant; else
UNKNOWN), `self.<attr>` from the reader, `self.config.<field>` from what the constructions of the config class pass
(Arrivals.field_value); the calls the run reaches return what running their callees returns (engine/called.py: the
embeddings, helpers and layers a tensor passes through on the way to the test), and a `for` runs until what its
iterations leave settles.  The run is done first with the values known for certain only, then with the defaults
too: a test decided only by the second holds by default only.  A test the run does not reach (in a `while`, a
`with`, a `try`) or whose truth differs between the paths reaching it stays a condition.

An argument whose value the walk does not know, or a tensor whose shape it does not know, is what the caller's run
passes (run_arg: "runarg" in Edge.vals), a tensor's shape as the fact ("shape", ...) when the run with the values
known for certain computes it, ("dshape", ...) when only the run with the defaults does (param_value reads each in
its run); a size not known is None in the facts.

A site under tests that are each true on some iteration of a loop the run unrolls is traced when the run takes all
of them on its one definite path (run_reached; conditions_evaluated.check): `if plan_idx > 0:` then `if
plan_num_rand_blocks[plan_idx] > 0:` for `plan_idx` in `range(2)`.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, NamedTuple

from . import conditions_evaluated as C
from . import consteval as E
from .called import Calls, self_attr_of
from .derived import def_node, global_reader
from .summary import FunctionSummary, ModuleSummary


_RUNS = itertools.count()  # (a number per run: what tells the places of two runs' paths apart)


class Ran(NamedTuple):
    """What one run of a function tells: `found`, each test's, operand's and call argument's values on the paths
    reaching it (consteval.Evaluator.tests / operands / args); `reached`, the truths its one definite path takes, in
    the order it first takes them; `number`, the run's own."""

    found: dict
    reached: dict
    number: int


def _plain(v: Any) -> bool:
    """A value the walk's env and the evaluator hold alike: a constant, or a tuple of them (a list the caller's run
    computes is passed as a tuple: `plan_from_length`, which the callee reads)."""
    return _constant(v) or (type(v) in (tuple, list) and all(_constant(x) for x in v))


def _constant(v: Any) -> bool:
    """(not a NumPy integer the run computed, which Dynamo traces as a tensor: consteval.Scalar)"""
    return v is None or (isinstance(v, (str, int, float, bool)) and not isinstance(v, E.Scalar))


def param_value(got: tuple | None, certain: bool) -> Any:
    """A parameter's (value, certainty) from the walk's env as the evaluator holds it."""
    if got is None:
        return E.UNKNOWN
    value, how = got
    if certain and how != C.KNOWN:
        return E.UNKNOWN
    if isinstance(value, C.Instance):
        if value.q in ("", "?"):
            return E.UNKNOWN
        facts = dict(f for f in value.facts if isinstance(f, tuple) and len(f) == 2)
        # ("dshape": a shape the caller's run computes with the defaults too, run_arg; a size not known is None in
        # the walk's facts, UNKNOWN to the evaluator)
        shape = facts.get("shape", None if certain else facts.get("dshape"))
        return E.Tensor(E.UNKNOWN if d is None else d for d in shape) if shape is not None else E.OPAQUE
    return value if _plain(value) else E.UNKNOWN


def _key(v: Any) -> tuple:
    if isinstance(v, E.Tensor):
        return ("T", v.shape)
    if v is E.OPAQUE:
        return ("O",)
    if v is E.UNKNOWN:
        return ("U",)
    return ("V", type(v).__name__, v)


def run_tests(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None,
              attr_of: Callable[[str], tuple | None], env: dict, memo: dict) -> dict | None:
    """(line, column, end line, end column) -> (truth, certain) of each `if` test and operand the run of `fs`
    on `env` decides, and (line, column) -> the same of each `if` test; `memo` (the reader's) keeps the runs by the parameters' values."""
    runs = _runs(arr, fs, mod, self_q, attr_of, env, memo)
    if runs is None:
        return None
    out = {}
    for certain, got in zip((True, False), runs):
        for at, truths in got.found.items():
            if at[0] != "arg" and at not in out and len(truths) == 1 and None not in truths:
                out[at] = (next(iter(truths)), certain)
    return out


def run_arg(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None, attr_of: Callable[[str], tuple | None],
            env: dict, memo: dict, at: tuple) -> tuple | None:
    """What the argument at `at` ((line, column, end line, end column), absolute) of a call in `fs` passes when `fs`
    runs on `env`, as the walk's env holds a value: (an int, a string..., or a tensor of that shape, certainty); None
    when the run does not tell one value on every path reaching the call (conditions_recorded's "runarg")."""
    runs = _runs(arr, fs, mod, self_q, attr_of, env, memo)
    for certain, got in zip((True, False), runs or ()):
        values = got.found.get(("arg", *at))
        if not values or any(v is E.UNKNOWN or v is E.OPAQUE for v in values) or \
                any(_key(v) != _key(values[0]) for v in values):
            continue
        v = values[0]
        how = C.KNOWN if certain else C.DEFAULT
        if isinstance(v, E.Tensor):  # (its shape "dshape" when it holds by default only)
            shape = tuple(None if d is E.UNKNOWN else d for d in v.shape)
            return C.Instance(C.TENSOR.q, frozenset({("shape" if certain else "dshape", shape)})), how
        if _plain(v):
            return (tuple(v) if isinstance(v, list) else v), how
    return None


def run_reached(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None,
                attr_of: Callable[[str], tuple | None], env: dict, memo: dict, wanted: list) -> tuple | None:
    """Does the run of `fs` on `env` take each test (or operand) of `wanted`, ((line, column, end line, end column),
    truth) absolute, its truth on its one definite path (consteval.Evaluator.reached: a path every run on these
    values takes, an unrolled loop's iterations included)?  (certain, when) -- then a site under those tests is
    traced, in some iteration, first at `when`: (the run, the place on its path of the last of those tests to be
    taken), comparable with another site's of the same run -- or None."""
    runs = _runs(arr, fs, mod, self_q, attr_of, env, memo)
    for certain, got in zip((True, False), runs or ()):
        if all(w in got.reached for w in wanted):
            return certain, (got.number, max((got.reached[w] for w in wanted), default=-1))
    return None


def _runs(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None, attr_of: Callable[[str], tuple | None],
          env: dict, memo: dict) -> list | None:
    """The two runs of `fs` on `env` (with the values known for certain, then with the defaults too), memoised."""
    node = def_node(arr, fs, mod)
    if node is None:
        return None
    a = node.args
    names = [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    stars = [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    runs = []
    for certain in (True, False):
        params = {n: param_value(env.get(n), certain) for n in names[1 if fs.is_method else 0:]}
        training = env.get(C.TRAINING)
        key = (certain, tuple((n, _key(v)) for n, v in params.items()),
               _key(param_value(training, certain)) if training is not None else None)
        if key not in memo:
            memo[key] = _run(arr, fs, mod, node, self_q, attr_of, params, names, stars, training, certain)
        runs.append(memo[key])
    return runs


def _run(arr, fs, mod, node, self_q, attr_of, params: dict, names: list, stars: list, training,
         certain: bool) -> Ran:
    ev = E.Evaluator(self_q.rpartition(".")[2] if self_q else None,
                     self_attr_of(arr, mod, attr_of, training, certain), global_reader(arr, mod))
    ev.calls = Calls(arr, mod, self_q, attr_of, certain, training)  # (what the calls it reaches return)
    # (`self.<attr>` of a method only: a nested function's `self` parameter, GradientCheckpointingLayer's
    # `forward_with_checkpointing(self, ...)`, reads attributes code outside the class sets, such as
    # `gradient_checkpointing_enable()`'s `module.gradient_checkpointing = True`)
    ev.self_name = names[0] if fs.is_method and names else ""
    env: dict = {n: E.UNKNOWN for n in [*names, *stars]}
    env.update(params)
    if fs.is_method and names:
        env[names[0]] = E.UNKNOWN
    ev.block(node.body, env)
    # (an "either" atom's position: the test's (line, column))
    return Ran({**ev.operands, **ev.tests, **ev.args}, ev.reached, next(_RUNS))


def position(fs: FunctionSummary, at: tuple) -> tuple:
    """A "run" test's (line, column, end line, end column), or an "either" test's (line, column), lines counted
    from the `def` line, as absolute."""
    base = fs.name_span.start.line + 1
    return (base + at[0], at[1], base + at[2], at[3]) if len(at) == 4 else (base + at[0], at[1])
