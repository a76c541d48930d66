"""What the analyzer extracts from one module: plain data, cheap to cache and to combine.

Everything is keyed by qualified names (``pkg.mod.Class.method``), so modules are analysed
independently and tied together later by the project (engine/project.py).
"""
from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..positions import Span

# A guard condition: the event is dead under compile if, for some conjunction in `dead_if`, every
# function named in it is a guard function (returns torch.compiler.is_compiling()).  An empty
# conjunction would mean "always dead"; such events are never recorded at all.
DeadIf = tuple  # tuple[frozenset[str], ...]


@dataclass
class Site:
    """A statement Dynamo cannot trace, found in a function body."""

    code: str
    span: Span
    message: str
    stmt: Span  # the enclosing statement (for guard and suppression fixes)
    dead_if: DeadIf = ()
    callee: str | None = None  # qualified callee, for ignore_logging_functions
    data: dict[str, Any] = field(default_factory=dict)
    # Only a break if the receiver is an instance of a class, which only the project can tell:
    # ("bound", q, class): q, imported from another module, is bound there to one (`from .utils
    # import logger`); ("returns", q, class): the receiver was made by the function q, which returns
    # one (`logger = get_logger(__name__)`).
    requires: tuple[str, str, str] | None = None
    conds: tuple = ()  # path condition inside the function: Cond atoms of the enclosing `if`s
    # the first line of the outermost `for` loop or `try` statement around it in its function: a graph
    # break there cannot be resumed, Dynamo runs the rest of the function uncompiled (project.py)
    block: int | None = None


@dataclass
class Edge:
    """A call from one function to something the project may resolve to a function."""

    # call | method | module_call | attr_call | item_call | super | hooks | factory_call | registry_call |
    # param_call / param_method (a call of / on an own parameter: `target` is its name, the caller's
    # argument tells the class) | outside_ctx (not a call: a `with` entering an object made before the
    # compiled code ran, analyzer._made_elsewhere) | tensor_hook (`t.register_hook(fn)`: fn, called
    # in the backward; target/attr as for call or attr_call)
    kind: str
    target: str  # qualified name (function, class) the call refers to
    attr: str | None
    span: Span
    text: str  # what the user wrote, for the call path
    dead_if: DeadIf = ()
    args: tuple[str, ...] = ()  # per positional argument: "iter", "call:<q>" or ""
    kwargs: tuple[tuple[str, str], ...] = ()
    conds: tuple = ()  # as Site.conds
    # what the call passes: ((position or keyword, ("const", value) | ("one_of", strings) (a name a `for` takes from
    # a literal tuple or list of strings) | ("param", name) | ("kwarg", key, default) (a local taken from the
    # function's `**kwargs`: engine/kwargs_edits.py) | ("inst", class)
    # | ("field", class, name) | ("unknown",)), ...), and ("**", ("star",)) when *args/**kwargs may pass
    # more (FunctionAnalyzer._passed)
    vals: tuple = ()
    block: int | None = None  # as Site.block
    with_item: bool = False  # the call makes the context manager of a `with` (`with timers.section("a"):`)


# A path-condition atom: (kind, name, test, polarity).  kind "param" (a parameter of the function,
# not rebound before the test), "self" (an attribute of self), "data" (a test on tensor data: name is
# its text) or "expr" (any other test: its text); test "truth" (`if flag:`), "none" (`if x is None:`)
# or ("cmp", operator, constant) (`if self.layerdrop > 0.0:`) or ("isinstance", class) (`isinstance(x, Tensor)`
# on a parameter); polarity: the test's required outcome.
Cond = tuple


@dataclass
class IterUse:
    param: str
    index: int  # position among the call's arguments (self excluded)
    span: Span
    how: str  # "next" | "for" | "enumerate" | "zip" (a `for` over enumerate(param) / zip(param, ...))
    dead_if: DeadIf = ()


@dataclass
class FunctionSummary:
    qualname: str
    name: str
    span: Span
    name_span: Span
    class_qualname: str | None = None
    params: list[str] = field(default_factory=list)
    is_generator: bool = False
    is_async: bool = False
    is_method: bool = False  # takes self as first parameter
    # How decorators change what Dynamo does with this function:
    compiled: bool | None = None  # decorated with torch.compile (value: fullgraph flag, None unknown)
    disabled: str | None = None  # "recursive" | "nonrecursive": torch.compiler.disable
    opaque: str | None = None  # "nonstrict_trace" | "custom_op" | "triton_op": not traced by Dynamo
    sites: list[Site] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    iter_uses: list[IterUse] = field(default_factory=list)
    # Guard function: returns torch.compiler.is_compiling() (if every atom is a guard too).
    guard_atoms: frozenset | None = None
    returns_value: bool = False  # has a `return <expr>` that is not None
    # a factory: `return GPT(cfg)` (class qualname), or of a module chosen by an if/else or from a table of
    # classes ("A|B")
    returns_instance: str | None = None
    returns_factory: str | None = None  # `return create_model(...)`: the factory whose result it returns
    # a factory of several: `return model, criterion` -> each item: ("class", q) an instance of class q,
    # ("factory", q) what the factory function q returns, or None
    returns_items: tuple[tuple[str, str] | None, ...] = ()
    # what each `return` returns, as values.return_desc describes it: a description (None: not known), or for
    # a tuple a tuple of them (Arrivals.return_kind combines them)
    returns_shapes: list = field(default_factory=list)
    # what each `return` returns as values.made_desc describes it, beside returns_shapes: "class:<q>" an instance
    # of q ("A|B" one of several), "ret:<q>" / "ret:<q>:<i>" what the function q returns (its item i), None not
    # known; a tuple of them for a tuple (Resolver.every_returned_class reads them)
    returns_made: list = field(default_factory=list)
    # the path conditions (Cond atoms) of each `return`, beside returns_made: `if kind == "loud": return Loud()` ...
    # `return Quiet()` (Resolver._factory_made decides a factory's class by the constants a call passes)
    returns_conds: list = field(default_factory=list)
    decorator_lines: list[int] = field(default_factory=list)
    # Decorators that may wrap it: (qualname, written as a call `@d(...)`, span), torch's own excluded.
    wrapped_by: list[tuple[str, bool, Span]] = field(default_factory=list)
    # Functions it returns: ("local", q) for `return inner`, ("call", q) for `return inner(...)`
    # (a decorator returning its wrapper, or a decorator factory returning the decorator).
    returns_fns: list[tuple[str, str]] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)  # parameter -> its literal default value
    positional: int = 0  # how many of `params` are positional (self included), before *args/kw-only
    required: int = 0  # how many of those have no default (`def render(H, W, chunk=1024 * 32)`: 2)
    vararg: str | None = None  # the name of its `*args` parameter
    kwarg: str | None = None  # the name of its `**kwargs` parameter
    returns_registry: tuple[str, ...] = ()  # `return LOSS_MAPPING[key]`: module-level dicts of functions
    # a class decorator's `cls.<method> = <local function>`: method name -> that function's qualname
    replaces: dict[str, str] = field(default_factory=dict)
    annotated: frozenset = frozenset()  # parameters with a type annotation
    # a function of one parameter returning a bool its argument's type and layout decide
    # (`is_torch_sparse_tensor(src)`): ((layout, what it returns for a torch.Tensor of that layout), ...)
    # (engine/tensors_made.py: layout_results)
    layout_results: tuple = ()
    # list/set/dict comprehensions over a sequence or mapping (not `range()` or a literal tuple):
    # (span, the names their bodies read).  Before Python 3.12 each is a frame of its own, which
    # Dynamo compiles separately when it runs the function uncompiled (project.py, FG405)
    comprehensions: list[tuple[Span, frozenset]] = field(default_factory=list)
    # calls of a local whose value the analysis cannot tell (`for k, m in self.items(): m(x)`,
    # `fn = getattr(obj, name); fn(x)`): (the callee as written, span of the call, conds, dead_if) with
    # conds and dead_if as Site's
    unknown_calls: list[tuple[str, Span, tuple, tuple]] = field(default_factory=list)
    # statements that change what the function did not make (`self.grads = g`, `LOG["k"] = v`,
    # `self.seen.append(g)`): (statement span, its first line's text).  A side effect Dynamo cannot
    # trace when the function runs as a tensor hook (project.py, FG506)
    effects: list[tuple[Span, str]] = field(default_factory=list)
    # which analysis made it: an editor buffer's re-analysis that takes the function unchanged, or moved
    # down with the lines above it, keeps the token (engine/incremental.py), and so do the memoised
    # variants of the function (Arrivals.with_tensor_params); None: this object is its own analysis
    origin: object = field(default=None, compare=False, repr=False)


@dataclass
class ClassSummary:
    qualname: str
    name: str
    span: Span
    name_span: Span
    bases: list[str] = field(default_factory=list)  # qualified names, as resolved in the module
    methods: dict[str, str] = field(default_factory=dict)  # name -> function qualname
    attrs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # self.<attr> -> class qualnames
    containers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # self.<attr> -> element classes
    # self.<attr> -> ((class qualname, atoms), ...): per assignment of an instance, its class and the tests of
    # `__init__` that hold where it is made (`if sparse: self.ffn = Routed()`: engine/attr_choices.py)
    choices: dict[str, tuple] = field(default_factory=dict)
    # self.<attr> -> ((the called name, its Edge.vals when every argument is a constant, else None), ...): what
    # `self.block = make_block("quiet")` passes the project function that makes the object (Resolver._factory_made)
    made_with: dict[str, tuple] = field(default_factory=dict)
    # self.<attr> -> what it holds once built: ("const", value) (a literal in the class body or
    # assigned in a method), ("init_param", name[, default]) (`self.x = x`, x an `__init__` parameter,
    # with its literal default if it has one), ("init_param_or", ("init_param", p, ...), ("init_param", q, ...))
    # (`if p is None: p = q` before `self.x = p`), ("object",) (an instance: not None, true); ("unknown",)
    # when assigned differently
    values: dict[str, tuple] = field(default_factory=dict)
    # the same for the assignments in `__init__` alone: what an attribute holds until a method changes it
    # (`self._requires_grad = True`, set False by `_freeze_parameters()`), read inside followed libraries
    init_values: dict[str, tuple] = field(default_factory=dict)
    # class-level dicts of functions (`_global_mapping = {"sdpa": sdpa_forward, ...}`): attr -> functions;
    # what a lookup method of the class returns may be any of them
    registries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    properties: set[str] = field(default_factory=set)  # methods that are @property getters
    decorators: list[tuple[str, bool]] = field(default_factory=list)  # class decorators: (qualname, called)
    # self.<attr> that hold tensors (`self.length = torch.zeros(())`, nn.Parameter, register_buffer)
    tensor_attrs: set[str] = field(default_factory=set)
    # methods replaced on the instance (`self.update = self._wrap_update(self.update)` in a method) or by
    # a wrapper in the class body (`forward = timed(_forward)`): name -> what calls of `self.<name>` run,
    # each (kind, where, always, *what): kind "wrap" (what: the wrapping function, as a qualname or
    # "self.<method>", the position of the argument passing the original, and the original,
    # ("method", name) | ("function", qualname)), "bound" (`types.MethodType(fn, self)`: fn's qualname),
    # "function" (a function assigned: its qualname) or "unknown" (what it holds is not visible: its
    # text); where: the method that assigns it ("" for the class body); always: set unconditionally in
    # `__init__` or the class body (else the original may still run)
    replaced: dict[str, tuple[tuple, ...]] = field(default_factory=dict)


@dataclass
class RootDecl:
    """`torch.compile` applied to something."""

    kind: str  # "function" | "module" (instance of a class: forward) | "method" | "attr" | "factory" |
    # "container" (nn.Sequential/ModuleList of the classes in `target`, "A|B"; or a module chosen
    # among them by an if/else)
    target: str  # function qualname, or class qualname
    attr: str | None
    fullgraph: bool | None
    label: str
    span: Span
    # what each visible call of the compiled object passes (Edge.vals per call)
    calls: tuple = ()
    training: bool | None = None  # the module was put in train/eval mode before compiling (None: unknown)
    source: str | None = None  # the name that held the compiled module (`torch.compile(model)`: "model")
    # the visible construction of the compiled module (`m = Metric(num_classes=3)`): its Edge.vals
    ctor: tuple | None = None
    # the visible calls are all there are: the compiled object is held by a name that the code only calls
    # (never passes, returns, stores or rebinds); `binding` is that name when it is module-level (another
    # module importing it may call it too: the project tells)
    calls_complete: bool = False
    binding: str | None = None


@dataclass
class CallSite:
    """Any call to a named function anywhere in the module (for iterator-argument analysis)."""

    target: str
    is_method_call: bool
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...]
    span: Span
    arg_spans: tuple = ()
    vals: tuple = ()  # as Edge.vals
    caller: str | None = None  # the function the call is in (its ("param", name) values are its own)


@dataclass
class ModuleSummary:
    name: str
    path: str
    text_hash: str
    cells: object = None  # a notebook's notebook.CellMap (its code cells as this module), else None
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    roots: list[RootDecl] = field(default_factory=list)
    bindings: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name -> (kind, q)
    star_imports: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)  # modules this module imports (absolute)
    # its literal sys.path edits: (0 front / 1 further in / -1 appended, directory), engine/syspath.py
    sys_path: list[tuple[int, str]] = field(default_factory=list)
    ignored: set[str] = field(default_factory=set)  # ignore_logging_functions.add(...) targets
    reorderable: set[str] = field(default_factory=set)
    allow_in_graph: set[str] = field(default_factory=set)
    # torch._dynamo.config.<name> = <constant> anywhere in the module: (name, value) pairs
    dynamo_config: set[tuple[str, Any]] = field(default_factory=set)
    call_sites: list[CallSite] = field(default_factory=list)
    # register_forward_hook(...): ((owner kind "class"|"attr", class q, attr), (kind, q, attr))
    hooks: list[tuple[tuple, tuple]] = field(default_factory=list)
    unresolved_roots: list[tuple[str, Span]] = field(default_factory=list)
    registries: dict[str, tuple[str, ...]] = field(default_factory=dict)  # module-level dicts of functions
    # those whose keys are all strings: name -> ((key, function qualname), ...) in the dict's order
    registry_keys: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    syntax_error: tuple[str, Span] | None = None
    suppressions: dict[int, frozenset | None] = field(default_factory=dict)  # line -> codes (None: all)
    line_count: int = 0
    # recompilation hazards read from the syntax tree (engine/recompiles.py): plain tuples
    recompiles: list[tuple] = field(default_factory=list)
    # calls of torch functions that may change the device a tensor factory makes tensors on
    # (engine/tensors_made.py): `torch.set_default_device`, `torch.set_default_tensor_type`, `torch.device`
    device_calls: set[str] = field(default_factory=set)
    # the environment variables the module sets (`os.environ["K"] = ...`, `os.environ.setdefault("K", ...)`,
    # `os.putenv("K", ...)`); "*" for one not named by a literal (`os.environ.update(d)`): a test of such a variable
    # is not held as a condition (conditions_evaluated._unset_holds)
    env_writes: set[str] = field(default_factory=set)

    # set True on the instance for a followed library's module (api.Workspace); read with getattr(m, "library",
    # False) across the engine, which without this default went through __getattr__'s AttributeError each time
    library: ClassVar[bool] = False

    # Pickled (the cache, the workers' summaries), the fields a project reads only in the modules its walks
    # reach are one blob, unpickled at the first read of one of them: a check of the torch tree reads them in
    # a handful of its 2,285 modules, and unpickling every summary took a fifth of the process's time.
    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        if "_body" not in d and "_deferred" not in d:  # (else: not read since it was unpickled, or not made)
            body = {k: d.pop(k) for k in BODY_FIELDS}
            d["_body"] = pickle.dumps(body, protocol=pickle.HIGHEST_PROTOCOL)
            d["_function_names"] = tuple(body["functions"])
        return d

    def __getattr__(self, name: str):  # (only for what the instance does not hold)
        if name in BODY_FIELDS and self._load_body():
            return self.__dict__[name]
        raise AttributeError(name)

    def _load_body(self) -> bool:
        d = self.__dict__
        if "_deferred" in d:
            return self._make_body()
        raw = d.pop("_body", None)
        if raw is None:
            return False
        for k, v in pickle.loads(raw).items():
            d.setdefault(k, v)  # (a field set since it was unpickled stays as set)
        d.pop("_function_names", None)
        return True

    def _make_body(self) -> bool:
        """A bulk load's summary (engine/deferred.py): its BODY_FIELDS from the module's full analysis, by
        the analyser the front-end set (BODY_ANALYZER)."""
        full = BODY_ANALYZER[0](self) if BODY_ANALYZER else None
        self.set_body(full.__dict__ if full is not None else None)
        return True

    def set_body(self, body: dict | None) -> None:
        """Give a bulk load's summary its BODY_FIELDS (from `body`, the full analysis' fields), empty when
        there is none (the file no longer holds the text analysed)."""
        d = self.__dict__
        d.pop("_deferred", None)
        d.pop("_function_names", None)
        if body is None:
            body = ModuleSummary(self.name, self.path, self.text_hash).__dict__
        for k in BODY_FIELDS:
            d.setdefault(k, body[k])

    def body_deferred(self) -> bool:
        """A bulk load's summary whose function bodies were not analysed yet (engine/deferred.py)."""
        return "_deferred" in self.__dict__

    def deferred_as(self) -> tuple:
        """A bulk load's summary: (is it a package's `__init__`, the cache directory its full analysis goes to)."""
        return self.__dict__["_deferred"]

    def defer_to(self, cache_dir: str | None) -> None:
        """A bulk load's summary: its full analysis, when a walk reads its bodies, goes to `cache_dir`."""
        is_package, _ = self.deferred_as()
        self.__dict__["_deferred"] = (is_package, cache_dir)

    def __copy__(self):
        self._load_body()
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def function_names(self):
        """The qualified names of its functions (without unpickling them)."""
        d = self.__dict__
        names = d.get("_function_names")
        return names if names is not None and "functions" not in d else self.functions.keys()


BODY_FIELDS = ("functions", "classes", "bindings", "call_sites", "hooks", "registries", "registry_keys")
# what makes a deferred summary's body (engine/deferred.py): [analyse(summary) -> the module's full summary, or
# None when its file no longer holds the text that was analysed], set by the front-end (api.py), which knows
# the rules, reads the files and keeps the cache
BODY_ANALYZER: list = []


def writable_copy(obj):
    """A copy of a summary dataclass whose containers are copied one level deep (writable without
    changing `obj`)."""
    new = copy.copy(obj)
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if isinstance(v, (dict, list, set)):
            setattr(new, f.name, type(v)(v))
    return new


def set_value(values: dict[str, tuple], attr: str, value: tuple) -> None:
    """ClassSummary.values (or init_values): one value per attribute, ("unknown",) once two places
    disagree."""
    old = values.get(attr)
    values[attr] = value if old is None or old == value else ("unknown",)


def add_replacement(cs: ClassSummary, attr: str, rep: tuple) -> None:
    """Record that `self.<attr>` of class `cs` is replaced as `rep` describes (ClassSummary.replaced):
    once per replacement, unconditional if one of its assignments is."""
    old = cs.replaced.get(attr, ())
    same = [r for r in old if r[0] == rep[0] and r[3:] == rep[3:]]
    if same:
        if rep[2] and not same[0][2]:
            cs.replaced[attr] = tuple(rep if r is same[0] else r for r in old)
        return
    cs.replaced[attr] = (*old, rep)


def add_elements(cs: ClassSummary, attr: str, classes) -> None:
    """Record that the container self.<attr> of class `cs` holds instances of `classes`."""
    cs.containers[attr] = tuple(sorted(set(cs.containers.get(attr, ())) | set(classes)))
