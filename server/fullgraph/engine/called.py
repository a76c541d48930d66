"""What a call returns when the function that makes it is run (engine/tests_run.py, engine/consteval.py): the run
of the callee on the values the call passes, as far as the evaluator can follow it (issue 27).

BigBird's attention reads the sequence length from its input (`batch_size, seqlen, _ = hidden_states.size()`), and
that input is what the model's forward computes from the script's `input_ids`: `self._pad_to_block_size(...)`
returns them in a tuple, `self.embeddings(input_ids=...)` makes the hidden states (a word embedding, sums of
embeddings, a dropout, a layer norm), and the encoder's `for layer_module in self.layer: hidden_states =
layer_module(hidden_states, ...)` passes each layer's output to the next.  A call the run reaches is followed here:

- `self.<method>(...)` and a method passed on (`apply_chunking_to_forward(self.feed_forward_chunk, ...)`): the
  method, run on the object's attributes (the same reader as the caller's);
- `self.<module>(...)` and an element of `self.<modules>` in a `for`: the forward of each class the attribute may
  hold (the classes an `__init__` choice cannot give the object dropped, engine/attr_choices.py; by default, inside
  a followed library, the one its own `__init__` makes, though another method may swap it), run on that object's
  attributes, through what replaces its forward (transformers' gradient-checkpointing wrapper); torch's layers by
  their effect on the shape (engine/shapes.py); every class must give the same value;
- a function of the project or a followed library called by its name (resolved through the module's imports); a
  module class called by its name makes an instance of it.

A callee is run only when what it returns is its body's `return` (not a generator, not async, no decorator but those
whose wrapper returns `func(*args, **kwargs)`, which may edit the keywords: then the parameters not passed by
position are not known), with the parameters bound as Python binds them (a parameter not passed takes its literal
default; not known when the call may pass more through `*args`/`**kwargs`).  The value is what every `return` reached
returns, UNKNOWN when they differ.  The runs are bounded (depth, and count per run of the calling function) and
memoised per generation by what decides them (the callee, the object's reader, the values passed, certainty, mode).
"""
from __future__ import annotations

import ast
from typing import Any, Callable

from . import conditions_evaluated as C
from . import consteval as E
from . import shapes as S
from .attr_choices import decide
from .derived import def_node, global_reader
from .nodes import walk
from .summary import FunctionSummary, ModuleSummary

MAX_DEPTH = 10  # calls within calls
MAX_RUNS = 300  # callee runs per run of the calling function


def self_attr_of(arr, mod: ModuleSummary, attr_of: Callable[[str], tuple | None], training: tuple | None,
                 certain: bool) -> Callable[[str], Any]:
    """`self.<attr>` as the evaluator reads it from the walk's reader `attr_of`: a plain value, the fields of a
    config object every construction passes (`self.config.block_size`), UNKNOWN; with `certain`, only what holds
    for certain; `training` the walk's value of `self.training` (model.eval())."""
    def read(attr: str) -> Any:
        got = training if attr == "training" and training is not None else attr_of(attr)
        if got is None or (certain and got[1] != C.KNOWN):
            return E.UNKNOWN
        value = got[0]
        if isinstance(value, C.Instance) and value.q not in ("", "?") and got[1] == C.KNOWN:
            return E.Fields(lambda field: _field(arr, value.q, field, mod.path, certain))
        return value if E._plain(value) else E.UNKNOWN
    return read


def _field(arr, class_q: str, field: str, near: str, certain: bool) -> Any:
    """`self.config.<field>`: what every construction of the config class passes (Arrivals.field_value, memoised
    per generation)."""
    got = arr.field_value(class_q, field, near)
    if got is None or (certain and got[1] != C.KNOWN) or not E._plain(got[0]):
        return E.UNKNOWN
    return got[0]


class Calls:
    """The evaluator's `calls` (consteval.Evaluator.calls) for a run of a function of module `mod` on an object of
    class `self_q` (None: a plain function), its attributes read by `reader` (an Arrivals.self_attr_reader)."""

    __slots__ = ("arr", "mod", "self_q", "reader", "certain", "training", "depth", "shared")

    def __init__(self, arr, mod: ModuleSummary, self_q: str | None, reader, certain: bool, training: tuple | None,
                 depth: int = 0, shared: dict | None = None):
        self.arr, self.mod, self.self_q, self.reader = arr, mod, self_q, reader
        self.certain, self.training, self.depth = certain, training, depth
        # (per run of the calling function: the calls under way, the runs left; the runs' values are kept for the
        # generation, by what determines them)
        self.shared = shared if shared is not None else {"active": set(), "runs": MAX_RUNS}

    # ---- what a name calls

    def method(self, name: str) -> E.Callee | None:
        """`self.<name>` where the class defines a method of that name: the method bound to this object."""
        if not self.self_q:
            return None
        hit = self.arr.r.find_method(self.self_q, name, self.mod.path)
        node = def_node(self.arr, *hit) if hit is not None else None
        if node is None or any(_descriptor(d) for d in node.decorator_list):
            return None  # (a property's value is what its getter returns, not the getter)
        fs, fmod = hit
        return E.Callee(("method", fs.qualname, fmod.path, self.self_q, self.reader, fs.is_method))

    def member(self, name: str) -> E.Callee | None:
        """`self.<name>(...)`: a method, else the module classes the attribute may hold."""
        got = self.method(name)
        if got is not None or not self.self_q:
            return got
        classes = self.arr.r.attr_types(self.self_q, name, self.mod.path)
        dropped = decide(self.arr, self.reader, self.self_q, name, self.mod.path) \
            if self.reader is not None and classes else {}
        # (a class held only where a flag differs from its default: not held in the run with the defaults)
        held = tuple(q for q in classes if q not in dropped or (dropped[q] is not None and self.certain))
        if not self.certain and getattr(self.mod, "library", False):
            # by default, what the object's `__init__` made: a library's attribute another method may change
            # (BigBird's `set_attention_type()`) holds it until the program calls that method (as SelfAttrs reads
            # the attributes a method changes)
            made = self._init_made(name)
            if isinstance(made, E.Callee) and (not held or made.payload[0] != "modules" or
                                               set(made.payload[1]) <= set(held)):
                return made
        return E.Callee(("modules", held)) if held else None

    def _init_made(self, name: str) -> Any:
        """`self.<name>` as the object's class's own `__init__` leaves it, run on what the constructions of the class
        pass (with the defaults): a module it constructs, an item of a table of layers (`ACT2FN[...]`); None when
        not known, or when `__init__` calls a method of the object (which may set it) or does not set it."""
        key = ("init", self.self_q, self.mod.path, _key(self.training))
        memo = self.arr.c.memo.setdefault("called_runs", {})
        if key not in memo:
            memo[key] = None
            memo[key] = self._init_run()
        return memo[key].get("self." + name) if memo[key] is not None else None

    def _init_run(self) -> dict | None:
        """The locals (and "self.<attr>") the object's class's own `__init__` leaves, as _init_made reads them."""
        r = self.arr.r
        hit = r.find_method(self.self_q, "__init__", self.mod.path)
        owner = r.class_(self.self_q, self.mod.path)
        node = def_node(self.arr, *hit) if hit is not None else None
        if node is None or owner is None or hit[0].class_qualname != self.self_q or not node.args.args:
            return None
        me = node.args.args[0].arg
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
               and n.func.value.id == me for n in walk(node)):
            return None
        fs, fmod = hit
        inputs = self.arr._init_inputs(fs, fmod, owner, 0)(False)
        ev = E.Evaluator(None, lambda attr: E.UNKNOWN, global_reader(self.arr, fmod))
        ev.self_name = me
        ev.calls = Calls(self.arr, fmod, None, None, False, self.training, self.depth + 1, self.shared)
        env = {a.arg: inputs(a.arg) if i else E.UNKNOWN
               for i, a in enumerate([*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs])}
        return ev.block(node.body, env)

    def elements(self, attr: str) -> Any:
        """What `for m in self.<attr>:` takes: a module of the classes the list holds, UNKNOWN when not known."""
        classes = self.arr.r.attr_types(self.self_q, attr, self.mod.path, containers=True) if self.self_q else []
        return E.Callee(("modules", tuple(classes))) if classes else E.UNKNOWN

    def function(self, name: str) -> E.Callee | None:
        """A module-level name called: the project's (or a followed library's) function it is bound to."""
        b = self.mod.bindings.get(name)
        if b is None or b[0] != "ref" or not b[1]:
            return None
        hit = self.arr.r.function(b[1], self.mod.path)
        if hit is not None:
            return E.Callee(("function", hit[0].qualname, hit[1].path))
        if self.arr.r.class_(b[1], self.mod.path) is not None and self.arr.r.is_nn_module(b[1], self.mod.path):
            return E.Callee(("class", b[1]))  # constructing a module: an instance of it
        return None

    # ---- what a call returns

    def call(self, callee: E.Callee, args: list, kwargs: dict, more: str) -> Any:
        """What calling `callee` returns (`more`: as consteval.Evaluator._passes tells it)."""
        kind = callee.payload[0]
        if kind == "class":
            return E.Callee(("modules", (callee.payload[1],)))
        if kind == "keep":  # a layer that keeps its input's shape (`ACT2FN[...]`)
            return args[0] if len(args) == 1 and not kwargs and not more and isinstance(args[0], E.Tensor) \
                else E.UNKNOWN
        if kind == "modules":
            values = [self._module(q, args, kwargs, more) for q in callee.payload[1]]
            return values[0] if values and all(E._same(v, values[0]) for v in values) else E.UNKNOWN
        hit = self.arr.r.function(callee.payload[1], callee.payload[2])
        if hit is None:
            return E.UNKNOWN
        if kind == "method":
            _, _, _, self_q, reader, bound = callee.payload
            return self._invoke(hit[0], hit[1], self_q, reader, args, kwargs, more, bound)
        return self._invoke(hit[0], hit[1], None, None, args, kwargs, more, False)

    def _module(self, class_q: str, args: list, kwargs: dict, more: str) -> Any:
        """Calling an instance of class_q: a torch layer by its effect on the shape; else its forward."""
        if not more and all(isinstance(a, E.Tensor) for a in args):
            shape = S.layer_output(class_q, [a.shape for a in args], kwargs)
            if shape is not None:
                return E.Tensor(shape)
        if class_q.startswith("torch."):
            return E.UNKNOWN
        targets = self.arr.r.module_call(class_q, self.mod.path)
        extra: dict = {}
        if len(targets) == 2 and targets[1][0].name == "forward" and \
                (names := _original_names(self.arr, *targets[0])):
            # `cls.forward = forward_with_checkpointing` (transformers' GradientCheckpointingLayer): the wrapper
            # runs, its `forward` the class's own (called as `forward(self, *args, **kwargs)`)
            fs, fmod = targets[1]
            original = E.Callee(("method", fs.qualname, fmod.path, class_q, self._reader(fs, fmod, class_q),
                                 "explicit"))
            extra = dict.fromkeys(names, original)
            targets = targets[:1]
        if len(targets) != 1:
            return E.UNKNOWN  # (forward hooks, which may change the output)
        fs, fmod = targets[0]  # (forward, what replaces it, or a `__call__`)
        return self._invoke(fs, fmod, class_q, self._reader(fs, fmod, class_q), args, kwargs, more, True, extra)

    def _reader(self, fs: FunctionSummary, fmod: ModuleSummary, class_q: str):
        """The reader of `self.<attr>` for an instance of class_q in fs (one per generation: the runs' memo keys)."""
        memo = self.arr.c.memo.setdefault("called_readers", {})
        key = (fs.qualname, fmod.path, class_q)
        if key not in memo:
            memo[key] = self.arr.self_attr_reader(fs, fmod, class_q)
        return memo[key]

    def _invoke(self, fs: FunctionSummary, fmod: ModuleSummary, self_q: str | None, reader, args: list,
                kwargs: dict, more: str, bound: bool | str, extra: dict | None = None) -> Any:
        """Run fs on the call's arguments (`bound`: a method of the object self_q, "explicit" when the call passes
        the object itself first: `forward(self, *args)`); `extra`: the free names of a nested function."""
        shared = self.shared
        if bound == "explicit":
            if not args:
                return E.UNKNOWN
            args, bound = args[1:], True
        if self.depth >= MAX_DEPTH or shared["runs"] <= 0 or fs.is_generator or fs.is_async:
            return E.UNKNOWN
        if fs.wrapped_by:
            if not _transparent(self.arr, fs, fmod):
                return E.UNKNOWN
            # (the wrapper may change the keywords it passes on: what they pass is not known, nor what they add)
            kwargs, more = {k: E.UNKNOWN for k in kwargs}, more or "kw"
        node = def_node(self.arr, fs, fmod)
        if node is None:
            return E.UNKNOWN
        globals_of = global_reader(self.arr, fmod)
        env = _bind(node, args, kwargs, more, bound, globals_of)
        if env is None:
            return E.UNKNOWN  # (a call Python refuses)
        env.update(extra or {})
        key = (fs.qualname, fmod.path, self_q, reader, self.certain, _key(self.training),
               tuple(sorted((n, _key(v)) for n, v in env.items())))
        memo = self.arr.c.memo.setdefault("called_runs", {})
        if key in memo:
            return memo[key]
        if key in shared["active"]:
            return E.UNKNOWN  # (a recursion)
        shared["active"].add(key)
        shared["runs"] -= 1
        ev = E.Evaluator(self_q.rpartition(".")[2] if self_q else None,
                         self_attr_of(self.arr, fmod, reader, self.training, self.certain) if reader is not None
                         else (lambda attr: E.UNKNOWN), globals_of)
        names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        ev.self_name = names[0] if bound and names else ""
        ev.calls = Calls(self.arr, fmod, self_q, reader, self.certain, self.training, self.depth + 1, shared)
        end = ev.block(node.body, env)
        returned = ev.returned + ([None] if end is not None else [])
        value = returned[0] if returned and all(E._same(v, returned[0]) for v in returned) else E.UNKNOWN
        shared["active"].discard(key)
        memo[key] = value
        return value


def _key(v: Any) -> Any:
    """A value as a memo key (a list is not hashable)."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_key(x) for x in v))
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return v


def _bind(node: ast.FunctionDef, args: list, kwargs: dict, more: str, bound: bool,
          global_value: Callable[[str], Any]) -> dict | None:
    """The callee's locals at its first line: the parameters as Python binds the call's arguments; None when
    Python would refuse the call."""
    a = node.args
    positional = [x.arg for x in [*a.posonlyargs, *a.args]]
    env: dict[str, Any] = {}
    if bound:
        if not positional:
            return None
        env[positional[0]] = E.UNKNOWN
        positional = positional[1:]
    defaults = dict(zip([x.arg for x in [*a.posonlyargs, *a.args]][len(a.posonlyargs) + len(a.args) - len(a.defaults):],
                        a.defaults))
    defaults.update({x.arg: d for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    if len(args) > len(positional) and a.vararg is None:
        return None
    env.update(zip(positional, args))
    if a.vararg is not None:
        env[a.vararg.arg] = E.UNKNOWN if more == "pos" else tuple(args[len(positional):])
    named = set(positional[len(args):]) | {x.arg for x in a.kwonlyargs}
    for k, v in kwargs.items():
        if k in env:
            return None
        if k in named:
            env[k] = v
        elif a.kwarg is None:
            return None
    ev = E.Evaluator(None, lambda attr: E.UNKNOWN, global_value)
    for name in [*positional, *(x.arg for x in a.kwonlyargs)]:
        if name in env:
            continue
        if more:
            env[name] = E.UNKNOWN
        elif name in defaults:
            env[name] = ev.expr(defaults[name], {})
        else:
            return None
    if a.kwarg is not None:
        env[a.kwarg.arg] = E.UNKNOWN
    return env


def _descriptor(decorator: ast.expr) -> bool:
    """`@property`, `@functools.cached_property`, `@x.setter`, `@classmethod`: `self.<name>` is not the function
    bound to the object."""
    d = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""
    return name in ("property", "cached_property", "setter", "getter", "deleter", "classmethod")


def _original_names(arr, fs: FunctionSummary, fmod: ModuleSummary) -> tuple[str, ...]:
    """The names a nested function that replaces a class's forward reads the original by: what the function that
    defines it binds to `<its first parameter>.forward` (`forward = cls.forward` in `__init_subclass__`)."""
    owner, sep, _ = fs.qualname.rpartition(".<locals>.")
    hit = arr.r.function(owner, fmod.path) if sep else None
    node = def_node(arr, *hit) if hit is not None else None
    if node is None or not node.args.args:
        return ()
    first = node.args.args[0].arg
    return tuple(t.id for s in node.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Attribute) and
                 s.value.attr == "forward" and isinstance(s.value.value, ast.Name) and s.value.value.id == first
                 for t in s.targets if isinstance(t, ast.Name))


def _transparent(arr, fs: FunctionSummary, fmod: ModuleSummary) -> bool:
    """Every decorator of fs replaces it by a wrapper whose every `return` is `func(*args, **kwargs)` of its own
    `*args` (not rebound) and `**kwargs` (transformers' `deprecate_kwarg`): what the call returns is fs's."""
    memo = arr.c.memo.setdefault("transparent_wrappers", {})
    key = (fs.qualname, fmod.path)
    if key not in memo:
        memo[key] = _is_transparent(arr, fs, fmod)
    return memo[key]


def _is_transparent(arr, fs: FunctionSummary, fmod: ModuleSummary) -> bool:
    wrappers = arr.r.wrappers(fs, fmod)
    if len(wrappers) < len(fs.wrapped_by):
        return False
    for w, wmod, _ in wrappers:
        node = def_node(arr, w, wmod)
        if node is None or node.args.vararg is None or node.args.kwarg is None:
            return False
        star, stars = node.args.vararg.arg, node.args.kwarg.arg
        returns = [n for n in walk(node) if isinstance(n, ast.Return)]
        if not returns:
            return False
        for r in returns:
            v = r.value
            if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and len(v.args) == 1 and
                    isinstance(v.args[0], ast.Starred) and isinstance(v.args[0].value, ast.Name) and
                    v.args[0].value.id == star and len(v.keywords) == 1 and v.keywords[0].arg is None and
                    isinstance(v.keywords[0].value, ast.Name) and v.keywords[0].value.id == stars):
                return False
        called = {r.value.func.id for r in returns}  # (the decorated function: a name the wrapper does not bind)
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in {star, *called}
               for n in walk(node)):
            return False
    return True
