"""Path conditions, evaluated: *when* a break on a path from a compiled root is traced.

The analyzer records, for every site and call, the flag tests of the `if`s around it (summary.Cond
atoms: a parameter of the function, or an attribute of self).  The project walks each root with
what is known of those flags and evaluates the atoms here:

- a parameter's value is what the call passes when it is a constant or the caller's own flag, else
  the default the call leaves in place; at the compiled root nobody's call is visible, so a
  parameter with a default has it *by default* only (the user may pass another value);
- `self.attr` is what the class body or its methods assign: a constant, an instance (true, not
  None), or an `__init__` parameter with a default that no construction in the project overrides
  (again, by default only).  `self.training` is True by default (nn.Module), False after `.eval()`.
- a flag the analysis cannot evaluate (a required parameter, an attribute set from a computed
  value) is assumed to take the path, as before: unknown values are not turned into conditions.

An atom known false means Dynamo never traces the path: the finding is dropped (the call is not
followed).  An atom that fails only with default values makes the finding *conditional*: reported
apart, worded with the condition ("when `output_attentions=True`").
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable

from .tensors_made import fact_holds

KNOWN = "known"  # the value is certain at this point (a constant passed, a class constant)
DEFAULT = "default"  # the value holds unless the user passes or sets another one

Env = dict  # parameter name -> (value, KNOWN | DEFAULT)


@dataclass(frozen=True)
class Instance:
    """A parameter's value is an instance of class `q` (what the caller passes): true, not None.  `facts`: of a
    tensor the user's script makes and passes unchanged, its dtype and device as far as they are known
    (engine/tensors_made.py: ("floating", bool), ("cpu", True)); not part of what the value is equal to."""

    q: str
    facts: frozenset = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Choices:
    """A parameter the visible calls pass different values to: ((value, certainty), ...)."""

    options: tuple


TRAINING = "@training"  # Env key: the compiled module's mode, inherited by what it calls
# Env keys: what a function's `*args` holds (a tuple of (value, certainty) or None per item) and its `**kwargs`
# (a tuple of (name, (value, certainty) or None)), when every call of it passes what the analysis can list;
# a call that forwards them unchanged (`self.update(*args, **kwargs)`) passes the same (Edge.vals "*fwd", "**fwd")
VARARGS = "@*args"
VARKW = "@**kwargs"
TENSOR = Instance("torch.Tensor")  # a tensor argument (values.TENSOR_CLASS)
ANY = Instance("")  # passed, and nothing known of it: a test on it is assumed to hold
UNKNOWN = Instance("?")  # a flag set from a value the analysis does not know (a CLI option, a variable)


def entry_env(defaults: dict[str, Any], calls: list[tuple] | None = None, params: list[str] = (),
              is_method: bool = False, positional: int = 0, annotated=frozenset(), complete: bool = False,
              stars: tuple | None = None, required: int | None = None) -> Env:
    """A compiled root's parameters: their defaults, by default only (the user may pass another
    value); with the user's visible calls of the compiled object (`calls`: their Edge.vals), a
    parameter every call passes the same constant or instance to has that value, one that some call
    passes otherwise is unknown (the path is then assumed taken); when those calls are all there are
    (`complete`), a parameter a call leaves alone has its default for certain.  With no visible call, a positional
    parameter without default (`required` of them, else `positional`) or annotation is what callers of compiled
    code pass most: a tensor (one with a default that is not a literal, `chunk=1024 * 32`, is not).  `stars`
    ((vararg, kwarg) names, FunctionSummary's): the arguments past the positional parameters are what `*args`
    holds, the keywords no parameter takes what `**kwargs` holds (VARARGS, VARKW: when every call agrees)."""
    env: Env = {name: (value, DEFAULT) for name, value in defaults.items()}
    names = list(params[1:] if is_method else params)
    if not calls:
        for name in names[:max(0, (positional if required is None else required) - (1 if is_method else 0))]:
            if name not in defaults and name not in annotated:
                env[name] = (TENSOR, DEFAULT)
        return env
    # each visible call is one way the root runs: a parameter's value is one of what they pass
    if stars is not None:  # (what `*args`/`**kwargs` hold: VARARGS, VARKW below)
        names = [n for n in names if n not in stars]
    options: dict[str, list] = {name: [] for name in names}
    npos = max(0, positional - (1 if is_method else 0)) if stars is not None else None
    extras = []
    for vals in calls:
        passed = _by_name(vals, names, npos)
        if stars is not None:
            extras.append(_extras(vals, names, npos, known))
        for name in names:
            v = passed.get(name)
            if v is None and "**" in passed:  # `compiled(**inputs)`: it may be passed
                v = ("unknown",)
            if v is None:  # left at its default by this call (other code may pass it: by default only)
                options[name].append((defaults[name], KNOWN if complete else DEFAULT) if name in defaults
                                     else (ANY, KNOWN))
            else:  # a value the analysis does not know: a flag may be off, a required argument is there
                options[name].append(known(v) or ((UNKNOWN, DEFAULT) if name in defaults else (ANY, KNOWN)))
    for name, opts in options.items():
        distinct = _distinct(opts)
        env[name] = distinct[0] if len(distinct) == 1 else (Choices(distinct), KNOWN)
    if stars is not None and extras and all(x is not None for x in extras):
        for key, got, star in ((VARARGS, [x[0] for x in extras], stars[0]), (VARKW, [x[1] for x in extras], stars[1])):
            if star is not None and all(_same(g, got[0]) for g in got):
                env[key] = (got[0], KNOWN)
    return env


def _distinct(opts: list) -> tuple:
    """The distinct (value, certainty) options; a tensor's facts (Instance.facts) those all its options share."""
    out = tuple(dict.fromkeys(opts))
    if any(isinstance(o[0], Instance) and o[0].facts for o in out):
        out = tuple((Instance(o[0].q, frozenset.intersection(*(p[0].facts for p in opts if p == o))), o[1])
                    if isinstance(o[0], Instance) else o for o in out)
    return out


def joined(envs: list[Env]) -> Env:
    """One env standing for all of `envs` (the walk's, for a function called with more sets of values than it
    walks apart: engine/walk.py): a value they agree on, else each value one of them holds (Choices: a test holds
    when it holds for one); a key one of them lacks is not known; what `*args`/`**kwargs` hold, only when all
    agree."""
    out: Env = {}
    for k in dict.fromkeys(k for e in envs for k in e):
        got = [e.get(k) for e in envs]
        if k in (VARARGS, VARKW):
            if all(g is not None and _same(g[0], got[0][0]) for g in got):
                out[k] = got[0]
            continue
        opts: list = []
        for g in got:
            g = g if g is not None else (UNKNOWN, DEFAULT)
            opts.extend(g[0].options if isinstance(g[0], Choices) else (g,))
        distinct = _distinct(opts)
        out[k] = distinct[0] if len(distinct) == 1 else (Choices(distinct), KNOWN)
    return out


def _same(a: tuple, b: tuple) -> bool:
    """Are two VARARGS/VARKW tuples the same, tensors' facts included?"""
    def key(x):
        if isinstance(x, Instance):
            return x.q, x.facts
        return tuple(key(i) for i in x) if isinstance(x, tuple) else x
    return a == b and key(a) == key(b)


def _by_name(vals: tuple, names: list[str], npos: int | None = None) -> dict[str, tuple]:
    """Edge.vals keyed by the callee's parameter names ("**" when *args/**kwargs may pass more); with `npos` (its
    positional parameters, self not counted) the positions past them are left out (its `*args` takes them)."""
    limit = len(names) if npos is None else min(npos, len(names))
    out: dict[str, tuple] = {}
    for key, v in vals:
        if isinstance(key, int):
            if key < limit:
                out[names[key]] = v
        elif key not in ("*fwd", "**fwd"):
            out[key] = v
    return out


def _extras(vals: tuple, names: list[str], npos: int, value) -> tuple | None:
    """What a call's arguments leave for the callee's `*args` and `**kwargs` (`value` reads each: known, or
    the caller's forwarded value): (items, keywords), each item (value, certainty) or None (not known); None
    when the call may pass more than the analysis lists (a star it cannot expand)."""
    if any(k == "**" for k, _ in vals):
        return None
    items = sorted((k, v) for k, v in vals if isinstance(k, int) and k >= npos)
    if [k for k, _ in items] != list(range(npos, npos + len(items))):
        return None
    kws = tuple(sorted((k, value(v)) for k, v in vals if isinstance(k, str) and k not in names
                       and k not in ("*fwd", "**fwd") and not k.startswith("@")))
    return tuple(value(v) for _, v in items), kws


def known(v: tuple) -> tuple | None:
    """(value, certainty) of a passed constant, config default ("dconst", Project.resolve_fields) or
    instance; None for anything else."""
    if v[0] == "const":
        return v[1], KNOWN
    if v[0] == "dconst":
        return v[1], DEFAULT
    if v[0] == "inst":
        return Instance(v[1], v[2] if len(v) > 2 else frozenset()), KNOWN
    if v[0] == "env":  # a forwarded `*args` item, as the caller's env holds it (_forwarded)
        return v[1]
    if v[0] == "like":  # a parameter's tensor reshaped: as the call's value reads (callee_env reads more)
        return known(v[2])
    if v[0] == "runarg" and len(v) > 5:  # a tensor whose shape the run of the caller may tell (callee_env)
        return known(v[5])
    return None


def callee_env(vals: tuple | None, caller: Env, params: list[str], is_method: bool,
               defaults: dict[str, Any], self_attr: Callable[[str], tuple | None] | None = None,
               stars: tuple | None = None) -> Env:
    """The callee's flags at one call: what the call passes, else the callee's defaults (known: the
    call is visible); `self.<attr>` passed is what the caller's object holds (`self_attr`: its class's
    `__init__` default, or what the visible constructions pass).  With `vals` None (a wrapper's
    `func(*args, **kwargs)`) only the mode is kept.  `stars` (the callee's positional parameters, self
    counted, and its vararg and kwarg names): the caller's own `*args`/`**kwargs` forwarded unchanged pass
    what they hold (VARARGS, VARKW), and what is left over goes to the callee's."""
    env: Env = {TRAINING: caller[TRAINING]} if TRAINING in caller else {}
    if vals is None:
        return env
    names = params[1:] if is_method else params
    npos = None
    if stars is not None:
        vals = _forwarded(vals, caller)
        npos = max(0, stars[0] - (1 if is_method else 0))
        got = _extras(vals, names, npos, lambda v: _ran(v, caller, self_attr) or known(v) or _param_value(v, caller))
        for key, star, item in ((VARARGS, stars[1], 0), (VARKW, stars[2], 1)):
            if star is not None and got is not None:
                env[key] = (got[item], KNOWN)
    passed = _by_name(vals, names, npos)
    for name in names:
        v = passed.get(name)
        if v is None:
            if name in defaults and "**" not in passed:  # left at its default
                env[name] = (defaults[name], KNOWN)
        elif v[0] == "like" and (got := _kept(caller.get(v[1]), _guards_false(v, caller, self_attr))) is not None:
            env[name] = got
        elif (got := _ran(v, caller, self_attr)) is not None:
            env[name] = got  # `seqlen` of `_, seqlen, _ = hidden_states.size()`: what running the caller computes
        elif known(v) is not None:
            env[name] = known(v)
        elif v[0] == "param":
            if v[1] in caller:
                env[name] = caller[v[1]]
        elif v[0] == "selfattr" and self_attr is not None and (got := self_attr(v[1])) is not None:
            env[name] = got
        elif v[0] == "loopidx" and (got := _index_values(v, self_attr)) is not None:
            env[name] = got
        elif name in defaults:  # passed a value the analysis does not know: the flag may be off
            env[name] = (UNKNOWN, DEFAULT)
    return env


def first_taken(conds: tuple, env: Env, self_attr) -> tuple | None:
    """Where on the run's one definite path a site (or call) with these conditions is first traced: (the run, the
    place of the last of its "run" tests to be taken), for engine/frames.py to order a function's breaks as the
    iterations of a loop run them; None when not known."""
    runs = [a for a in conds if _run_atom(a)]
    read = getattr(self_attr, "run_reached", None)
    if not runs or read is None:
        return None
    got = read([(a[2][1:], a[3]) for a in runs], env)
    return got[1] if got is not None else None


def _taken(conds: tuple, env: Env, self_attr) -> tuple:
    """The "run" atoms of `conds` when the run of the function takes every one's wanted truth on its one definite
    path (first_taken): `if plan_idx > 0:` then `if plan_num_rand_blocks[plan_idx] > 0:` in the second iteration
    of `for plan_idx in range(2)`; () otherwise."""
    if first_taken(conds, env, self_attr) is None:
        return ()
    return tuple(a for a in conds if _run_atom(a))


def _run_atom(atom: tuple) -> bool:
    return atom[0] == "expr" and isinstance(atom[2], tuple) and atom[2][0] == "run"


def _ran(v: tuple, caller: Env, self_attr) -> tuple | None:
    """Edge.vals ("runarg", ...): what running the caller computes for the argument (the reader's `run_arg`), None
    when it does not tell.  A tensor the call passes for certain whose shape the run computes by default only is a
    tensor for certain (its facts tell the shape's certainty: tests_run.param_value)."""
    if v[0] != "runarg" or (read := getattr(self_attr, "run_arg", None)) is None:
        return None
    if len(v) > 5 and not getattr(self_attr, "lib", False):
        return None  # (a tensor in the user's code: its shape is run for inside a followed library only, where
        # models carry the script's tensors through their layers -- a run per call on every keystroke otherwise)
    if (got := read(v[1:5], caller)) is None:
        return None
    return (got[0], KNOWN) if len(v) > 5 and isinstance(got[0], Instance) else got


def _index_values(v: tuple, self_attr) -> tuple | None:
    """Edge.vals ("loopidx", attribute, leaves early, how, the index itself): what the calls of the iterations of
    `for i, x in enumerate(self.<attribute>)` pass, as Dynamo unrolls the loop over the elements the object holds
    (the reader's `element_count`): one value, or each value one of them passes (Choices); None when the count is
    not known or the loop may be left before its last iteration."""
    read = getattr(self_attr, "element_count", None)
    got = read(v[1]) if read is not None else None
    if got is None or v[2] or got[0] < 1:
        return None
    n, how = got
    try:
        values = list(range(n)) if v[4] else [_COMPARE[v[3][1]](i, v[3][2]) for i in range(n)]
    except TypeError:
        return None
    distinct = tuple(dict.fromkeys(values))
    return (distinct[0], how) if len(distinct) == 1 else (Choices(tuple((x, how) for x in distinct)), KNOWN)


def _guards_false(v: tuple, caller: Env, self_attr) -> str | None:
    """Edge.vals ("like", parameter, value[, guards]): is each guard of a store that would make the local passed
    something else than the parameter's tensor (`if num_sampled_nodes_per_hop is not None: x, edge_index, value =
    ...`) false on this caller's values (tensors_made.kept_param)?  KNOWN, DEFAULT (false unless the user passes
    another value), or None (one may hold)."""
    how = KNOWN
    for conj in (v[3] if len(v) > 3 else ()):
        got = {evaluate(a, caller, self_attr or _nothing) for a in conj}
        if "false" in got:
            continue
        if "default" not in got:  # (every atom may hold: the store may run)
            return None
        how = DEFAULT
    return how


def _nothing(_attr: str) -> None:
    return None


def _kept(got: tuple | None, how: str | None = KNOWN) -> tuple | None:
    """What a caller's parameter reshaped or indexed is (Edge.vals "like"): a tensor with its facts, when the
    parameter holds a tensor (and `how`, the guards of the other stores are false: by default only when
    DEFAULT)."""
    if how is None or got is None or not isinstance(got[0], Instance) or got[0].q != TENSOR.q:
        return None
    # (its dtype and device, not its shape: reshaped or indexed, the tensor passed has another)
    facts = frozenset(f for f in got[0].facts if not (isinstance(f, tuple) and f and f[0] in ("shape", "dshape")))
    return Instance(got[0].q, facts), (got[1] if how == KNOWN else DEFAULT)


def _param_value(v: tuple, caller: Env) -> tuple | None:
    return caller.get(v[1]) if v[0] == "param" else None


def _forwarded(vals: tuple, caller: Env) -> tuple:
    """Edge.vals with the caller's own `*args` ("*fwd": passed unchanged from position k on) and `**kwargs`
    ("**fwd", less the keys it popped: engine/kwargs_edits.py) read as what the caller's env says they hold
    (VARARGS, VARKW), as ("env", (value, certainty)) or ("unknown",) items; the "**" mark (more may be passed)
    goes when every star of the call is so read."""
    fwd = {k: v for k, v in vals if k in ("*fwd", "**fwd")}
    if not fwd:
        return vals
    items = caller.get(VARARGS) if "*fwd" in fwd else None
    kws = caller.get(VARKW) if "**fwd" in fwd else None
    out = [(k, v) for k, v in vals if k not in ("*fwd", "**fwd", "**")]
    if items is not None:
        start = fwd["*fwd"][2]
        out.extend((start + i, ("env", x) if x is not None else ("unknown",)) for i, x in enumerate(items[0]))
    if kws is not None:
        # less the keys the caller popped before the call; those it may have changed: not known
        spec = fwd["**fwd"]
        removed, unsure = (spec[2], spec[3]) if len(spec) > 3 else ((), ())
        taken = {k for k, _ in out}
        out.extend((name, ("env", x) if x is not None and name not in unsure else ("unknown",))
                   for name, x in kws[0] if name not in taken and name not in removed)
        taken = {k for k, _ in out}
        out.extend((name, ("unknown",)) for name in unsure if name not in taken)
    if ("*fwd" in fwd and items is None) or ("**fwd" in fwd and kws is None):
        out.append(("**", ("star",)))
    return tuple(out)


def attr_value(value: tuple | None) -> tuple[Any, str] | None:
    """ClassSummary.values entry -> (value, certainty), None when unknown ("set_unknown": an
    `__init__` flag some construction sets from a value the analysis does not know)."""
    if value is None:
        return None
    kind = value[0]
    if kind == "const":
        return value[1], KNOWN
    if kind == "object":
        return True, KNOWN
    if kind == "init_param":
        return (value[2], DEFAULT) if len(value) > 2 else None  # a required argument: what callers pass
    if kind == "set_unknown":
        return UNKNOWN, DEFAULT
    if kind == "init_param_or":
        return or_fallback(attr_value(value[1]), lambda: attr_value(value[2]))
    return None


def or_fallback(got: tuple | None, fallback: Callable[[], tuple | None]) -> tuple | None:
    """`if p is None: p = q` (ClassSummary.values "init_param_or"): p's (value, certainty) `got`, or when that is
    None q's (`fallback()`), certain when both are; None when either is not known, UNKNOWN when p may be None."""
    if got is None:
        return None
    value, how = got
    if value is None:
        other = fallback()
        if other is None:
            return None
        return other[0], KNOWN if how == KNOWN and other[1] == KNOWN else DEFAULT
    if isinstance(value, Choices) and any(o[0] is None or o[0] is UNKNOWN for o in value.options):
        return UNKNOWN, DEFAULT
    return got


def evaluate(atom: tuple, env: Env, self_attr: Callable[[str], tuple | None], library: bool = False) -> str:
    """"true" (taken, or cannot tell), "false" (never traced) or "default" (not taken unless the user
    changes a default).  Any other test ("expr") is assumed taken in the user's code, and makes the
    path conditional inside a followed library, where such tests select features by configuration
    (`if "dynamic" in self.rope_type:`, `if len(collected_outputs) > 0:`)."""
    kind, name, test, want = atom
    if kind == "data":
        return "default"  # only when the tensor data takes this branch
    if kind == "expr":
        if isinstance(test, tuple) and test[0] == "unset":
            return _unset_holds(test, want, self_attr)
        if isinstance(test, tuple) and test[0] == "loopidx":
            return _index_holds(test, want, self_attr) or ("default" if library else "true")
        if library and isinstance(test, tuple) and test[0] in ("global", "selfread", "selfhas"):
            return _read_holds(test, want, self_attr)
        if isinstance(test, tuple) and test[0] == "either":
            if not library:
                return "true"
            got = _run_holds(test, want, self_attr)
            return (_env_run_holds(test[1:], want, env, self_attr) or "true") if got == "true" else got
        if library and isinstance(test, tuple) and test[0] == "tensor":
            return _tensor_holds(test, want, env, getattr(self_attr, "predicate", None))
        if isinstance(test, tuple) and test[0] == "run":
            # (in the user's code a test the run does not decide is taken, as any test that is not known)
            got = _env_run_holds(test[1:], want, env, self_attr)
            return got if got is not None else "default" if library else "true"
        return "default" if library else "true"
    if kind == "param":
        got = env.get(name)
        if got is None:
            return "true"  # a parameter the caller passes: assumed to take the path (no guessing)
    elif kind == "self" and name == "training" and TRAINING in env:
        got = env[TRAINING]  # the mode the user set before compiling (`model.eval()`)
    else:
        got = self_attr(name)
        if isinstance(test, tuple) and test[0] == "absent":  # `getattr(self.config, "name", default)`
            absent = getattr(self_attr, "field_absent", None)
            if got is None and absent is not None and absent(name):
                got = (test[1], DEFAULT)  # no such field: the default, unless the user adds one
            test = test[2]
        if got is None:
            if name != "training":
                # set from a value the analysis does not know: assumed taken in the user's code (no
                # guessing); inside a library such attributes are configuration switches, like "expr"
                return "default" if library else "true"
            got = (True, DEFAULT)  # nn.Module: training until .eval()
    return _holds(got, test, want)


def _unset_holds(test: tuple, want: bool, self_attr=None) -> str:
    """An ("unset", value, how, variable) test (conditions_recorded._unset_test) on the value a plain run leaves:
    "true" when it takes the branch, else "default" (a launcher or an environment variable set may make it take
    it); "true" when the project itself sets the variable (the reader's `env_written`: what it sets is not read)."""
    _, value, how, key = test
    written = getattr(self_attr, "env_written", None)
    if key is not None and written is not None and written(key):
        return "true"
    try:
        holds = _reads_true(value, how)
    except (TypeError, KeyError):
        return "true"
    return "true" if holds == want else "default"


def _read_holds(test: tuple, want: bool, self_attr) -> str:
    """An "expr" test of a module-level variable or of a local read from an attribute of self
    (conditions_recorded._read_test): decided by the initial constant when every assignment of it is seen
    (engine/globals_seen.py, engine/attrs_seen.py; by default only when a guard of an assignment is false
    only by default), else a condition."""
    from .globals_seen import NOT_KNOWN
    if test[0] == "global":
        read = getattr(self_attr, "module_value", None)
        value, how = (read(test[1]) if read is not None else NOT_KNOWN), KNOWN
    elif test[0] == "selfhas":  # `hasattr(self, "_x")`: False when nothing sets it on the object
        read = getattr(self_attr, "seen_absent", None)
        got = read(test[1]) if read is not None else NOT_KNOWN
        value, how = (NOT_KNOWN, None) if got is NOT_KNOWN else (False, KNOWN if got else DEFAULT)
    else:
        read = getattr(self_attr, "seen_value", None)
        got = read(test[1]) if read is not None else NOT_KNOWN
        value, how = (NOT_KNOWN, None) if got is NOT_KNOWN else (got[0], KNOWN if got[1] else DEFAULT)
    if value is NOT_KNOWN:
        return "default"
    try:
        holds = _reads_true(value, test[2])
    except TypeError:
        return "default"
    return "true" if holds == want else "false" if how == KNOWN else "default"


def _reads_true(value: Any, how: tuple) -> bool:
    """Is a test true of `value`, read as conditions_recorded._how reads it: ("none", is None?), ("cmp", operator,
    constant) or ("truth",)?  (TypeError when the comparison cannot be made.)"""
    if how[0] == "none":
        return (value is None) == how[1]
    if how[0] == "cmp":
        return _COMPARE[how[1]](value, how[2])
    return bool(value)


def _index_holds(test: tuple, want: bool, self_attr) -> str | None:
    """A test of the index of `for i, x in enumerate(self.<attr>)` inside the loop (conditions_recorded._read_test):
    Dynamo unrolls the loop over a module list, so the test's branch is traced when one index of the elements the
    object holds (the reader's `element_count`) passes it: "true", "false" when none does ("default" when the count
    holds by default only); None when the count is not known, or when one index passes it but the loop may be left
    before that iteration (a `break`, `return` or `raise` in it)."""
    read = getattr(self_attr, "element_count", None)
    got = read(test[1]) if read is not None else None
    if got is None:
        return None
    n, how = got
    leaves, kind = test[2], test[3]
    try:
        if kind[0] == "cmp":
            passes = any(_COMPARE[kind[1]](i, kind[2]) == want for i in range(n))
        elif kind[0] == "truth":
            passes = any(bool(i) == want for i in range(n))
        else:
            return None
    except TypeError:
        return None
    if passes:
        return None if leaves and not (kind[0] == "cmp" and _COMPARE[kind[1]](0, kind[2]) == want) else "true"
    return "false" if how == KNOWN else "default"


def _run_holds(test: tuple, want: bool, self_attr) -> str:
    """The whole test of an `if a or b:` (its body) or `if a and b:` (its else branch), as running the function
    on what is known of the object computes it on every path to the `if` (engine/derived.py, the reader's
    `test_value`): "false" when it is known to fail, "default" when only by default, else "true" (taken, as a
    test that is not known always was there)."""
    read = getattr(self_attr, "test_value", None)
    got = read(test[1], test[2]) if read is not None else None
    if got is None or got[0] == want:
        return "true"
    return "false" if got[1] else "default"


def _env_run_holds(at: tuple, want: bool, env: dict, self_attr) -> str | None:
    """A test at `at` (a "run" atom's position, or an "either" one's (line, column)) as running the function on the
    values the walk gives its parameters computes it (engine/tests_run.py, the reader's `run_test`): "true",
    "false", "default" (false only by default); None when the run does not decide it."""
    read = getattr(self_attr, "run_test", None)
    got = read(at, env) if read is not None else None
    if got is None:
        return None
    return "true" if got[0] == want else "false" if got[1] else "default"


def _tensor_holds(test: tuple, want: bool, env: dict, predicate=None) -> str:
    """A tensors_made.tensor_test atom (true when the test is `want`) evaluated on what the walk knows the parameter
    holds: "true", "false", or "default" (not known: the condition stays).  Several visible calls: true when one
    makes it true.  `predicate`: a function's FunctionSummary.layout_results, for a test that calls one."""
    got = env.get(test[1])
    if got is None:
        return "default"
    value, how = got
    options = value.options if isinstance(value, Choices) else ((value, how),)
    results = set()
    for v, h in options:
        facts = v.facts if isinstance(v, Instance) and v.q == TENSOR.q else frozenset()
        truth = fact_holds(facts, test[2], test[3], predicate)
        if truth is None:
            results.add("default")
            continue
        if len(test) > 4 and not test[4]:  # (`p.layout != torch.sparse_coo`)
            truth = not truth
        results.add("true" if truth == want else "false" if h == KNOWN else "default")
    return "true" if "true" in results else "default" if "default" in results else "false"


def holds(got: tuple, test, want: bool) -> str:
    """"true", "false" (certainly) or "default" (false by default only): the test of a flag whose (value,
    certainty) is `got`, against the outcome `want`."""
    return _holds(got, test, want)


def _holds(got: tuple, test: str, want: bool) -> str:
    value, how = got
    if isinstance(value, Choices):  # true when some visible call makes it true
        results = {_holds(o, test, want) for o in value.options}
        return "true" if "true" in results else "default" if "default" in results else "false"
    if value is ANY:
        return "true"
    if value is UNKNOWN:
        return "default"  # may be off: the condition is reported
    if isinstance(test, tuple) and test[0] == "isinstance":
        holds = _isinstance(value, test[1])
        if holds is None:
            return "true"  # nothing known of the class: assumed taken
    elif isinstance(test, tuple):  # ("cmp", operator, constant)
        try:
            holds = _COMPARE[test[1]](value, test[2])
        except TypeError:
            return "true"  # not comparable as written: nothing known
    else:
        holds = (value is None) if test == "none" else bool(value)
    if holds == want:
        return "true"
    return "false" if how == KNOWN else "default"


_TENSORS = ("torch.Tensor", "torch.Tensor[bool]", "torch.Tensor[sparse]")  # values.TENSOR_CLASS, MASK/SPARSE_CLASS
# classes no tensor is an instance of (`if isinstance(pos, int): pos = torch.arange(pos)` with a tensor `pos`)
_NOT_TENSOR = frozenset({*(f"builtins.{n}" for n in ("int", "float", "bool", "complex", "str", "bytes", "list",
                                                      "tuple", "dict", "set", "frozenset", "range", "slice")),
                         "numpy.ndarray", "numpy.generic", "numpy.integer", "numpy.floating", "numbers.Number"})


def _isinstance(value: Any, cls: str) -> bool | None:
    """`isinstance(value, cls)` for a passed value, None when it cannot be told (a subclass, say)."""
    if isinstance(value, Instance):
        if value.q in ("", "?"):
            return None
        if value.q == cls:
            return True
        if cls == "torch.Tensor":
            return value.q in _TENSORS
        if value.q in _TENSORS and cls in _NOT_TENSOR:
            return False
        return None
    if cls == "torch.Tensor":
        return False  # a constant (None, a number, a string) is no tensor
    return None


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}


def merge(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """Two conditions (conjunctions of described atoms) as one, each atom once."""
    return a + tuple(x for x in b if x not in a) if b else a


def weaker(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...] | None:
    """The condition of a function reached again by another path, when that makes it weaker: `new`
    when it needs only some of `old`'s atoms; the atoms the two share when they differ in one atom and
    its negation (`if a: self.f(x)` / `else: self.f(x, y)` reach `f` either way); else None."""
    so, sn = set(old), set(new)
    if sn < so:
        return new
    only_old, only_new = so - sn, sn - so
    if len(only_old) == 1 and len(only_new) == 1 and _negations(next(iter(only_old)), next(iter(only_new))):
        return tuple(a for a in old if a in sn)
    return None


def _negations(a: str, b: str) -> bool:
    """Are two described atoms (describe) one test and its negation?"""
    for x, y in ((a, b), (b, a)):
        if x.startswith("`") and x.endswith("`") and y in (f"`not ({x[1:-1]})`", f"`not {x[1:-1]}`"):
            return True
        if x.endswith(" is None`") and y == x[:-len(" is None`")] + " is not None`":
            return True
        if x.endswith("=True`") and y == x[:-len("=True`")] + "` is false":
            return True
        if x.endswith(" true") and y == x[:-len(" true")] + " false" and x.startswith("the data makes "):
            return True
    return {a, b} == {"the module is in training mode", "the module is in eval mode"}


def describe(atom: tuple) -> str:
    kind, name, test, want = atom
    if kind == "data":
        return f"the data makes `{name}` {'true' if want else 'false'}"
    if kind == "expr":
        return f"`{name}`" if want else f"`not ({name})`"
    if kind == "self" and name == "training" and test == "truth":
        return "the module is in training mode" if want else "the module is in eval mode"
    subject = f"self.{name}" if kind == "self" else name
    if isinstance(test, tuple) and test[0] == "absent":  # (worded as the test on the field)
        test = test[2]
    if isinstance(test, tuple) and test[0] == "isinstance":
        text = f"isinstance({subject}, {test[1].rsplit('.', 1)[-1]})"
        return f"`{text}`" if want else f"`not ({text})`"
    if isinstance(test, tuple):  # ("cmp", operator, constant)
        text = f"{subject} {test[1]} {test[2]!r}"
        return f"`{text}`" if want else f"`not ({text})`"
    if test == "none":
        return f"`{subject} is {'' if want else 'not '}None`"
    if kind == "param":
        return f"`{name}={'True' if want else 'False'}`" if want else f"`{name}` is false"
    return f"`{subject}`" if want else f"`not {subject}`"


def check(conds: tuple, env: Env, self_attr: Callable[[str], tuple | None],
          library: bool = False) -> tuple[str, ...] | None:
    """None when the path is never traced; else the conditions (texts) it still depends on.  The tests of the
    function that the run on the walk's values takes on its one definite path (tests_run.run_reached: in some
    iteration of a loop the run unrolls) hold together."""
    out: list[str] = []
    taken = _taken(conds, env, self_attr)
    for atom in conds:
        r = "true" if atom in taken else evaluate(atom, env, self_attr, library)
        if r == "false":
            return None
        if r != "true":
            text = describe(atom)
            if text not in out:
                out.append(text)
    return tuple(out)
