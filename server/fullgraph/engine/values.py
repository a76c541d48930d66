"""Abstract values the analyzer tracks, and what it knows about torch's and Python's names.

A value is what an expression is known to be *while Dynamo traces it*: a tensor, a Python scalar
computed from tensor data, a guard (``torch.compiler.is_compiling()``, True under compile), a
reference to a named symbol, an instance of a known class, an iterator, ...  Everything not known
is UNKNOWN, and rules never fire on UNKNOWN where a wrong guess would be a false positive.
"""
from __future__ import annotations

from dataclasses import dataclass

# ---- value kinds ------------------------------------------------------------------------------
UNKNOWN = "unknown"
REF = "ref"  # a named symbol: module, function, class, external API (q = qualified name)
INSTANCE = "instance"  # an object of class q (project or external, e.g. "logging.Logger")
TENSOR = "tensor"
DDSCALAR = "ddscalar"  # a Python number/bool/list computed from tensor data (.item(), int(t), ...)
CONST = "const"  # a Python literal (number, string, None, bool)
FSTRING = "fstring"
GUARD = "guard"  # True while compiling, if every atom (a function qualname) is a guard function
ITERATOR = "iterator"  # iter(...), zip(...), a generator: consumed by next()/for
SELF = "self"  # `self` in a method of class q
SELFATTR = "selfattr"  # self.<attr> (q = class, attr = name)
ITEMOF = "itemof"  # an element of self.<attr> container (q = class, attr = name)
LOCALFN = "localfn"  # a nested def or lambda (q = its qualname)
COMPILED = "compiled"  # result of torch.compile(...)
OPAQUE = "opaque"  # nonstrict_trace(f) / a custom op: Dynamo does not trace into it
STATIC = "static"  # static metadata (x.shape, x.dtype, x.ndim, len(x), x.size()): not data-dependent
SUPER = "super"  # super() in class q
CLASSES = "classes"  # a dict literal of classes (`{"informer": Informer, "stack": InformerStack}`, q = "A|B"; atoms:
# its (key, class) pairs when every key is a literal), or an item of one at a key not known (attr "item"): calling
# that makes an instance of any of them
TUPLE = "tuple"  # what a function of the project returns, a tuple holding tensors (attr: the items' tensor kinds,
# comma-separated, "" where not known: Arrivals._call_results)


@dataclass(frozen=True, init=False)
class Val:
    kind: str = UNKNOWN
    q: str | None = None
    attr: str | None = None
    atoms: frozenset = frozenset()  # for GUARD: functions that must all be guards
    negated: bool = False  # for GUARD: `not guard`
    float_dtype: bool = False  # for TENSOR: known floating point
    training: bool | None = None  # for a module INSTANCE: after .train() (True) / .eval() (False)

    def __init__(self, kind: str = UNKNOWN, q: str | None = None, attr: str | None = None,
                 atoms: frozenset = frozenset(), negated: bool = False, float_dtype: bool = False,
                 training: bool | None = None):
        # the fields written into __dict__: the frozen dataclass's own __init__ sets each through
        # object.__setattr__, and making values was 6% of analysing the torch tree
        d = self.__dict__
        d["kind"] = kind
        d["q"] = q
        d["attr"] = attr
        d["atoms"] = atoms
        d["negated"] = negated
        d["float_dtype"] = float_dtype
        d["training"] = training

    def is_tensor(self) -> bool:
        return self.kind == TENSOR


U = Val()
_REFS: dict[str, Val] = {}


def ref(q: str) -> Val:
    """Val(REF, q), one per name (values are immutable: a name read a hundred times makes one; most
    values the analysis makes are references, `torch.nn.functional.relu`, `builtins.len`...)."""
    v = _REFS.get(q)
    if v is None:
        if len(_REFS) >= 50_000:  # a long-running language server: bounded (~260 bytes an entry)
            _REFS.clear()
        v = _REFS[q] = Val(REF, q)
    return v


TENSOR_V = Val(TENSOR)
FLOAT_TENSOR_V = Val(TENSOR, float_dtype=True)
CONST_V = Val(CONST)
STATIC_V = Val(STATIC)
DDSCALAR_V = Val(DDSCALAR)
BOOL_TENSOR_V = Val(TENSOR, attr="bool")  # a comparison of tensors: a mask
PARAM_TENSOR_V = Val(TENSOR, attr="param")  # a module's parameter or buffer (a leaf)
POINTER_V = Val(DDSCALAR, q="data_ptr")  # what t.data_ptr() returns
NUMPY_V = Val(TENSOR, attr="numpy")  # what a NumPy call returns: Dynamo traces it as a tensor
# what a NumPy call of shapes and numbers returns (`np.prod(x.shape[1:])`): a tensor too, but one Dynamo folds to a
# number when the sequence has one item (verified on 2.13: `np.prod(x.shape[1:])` of a 2-d x, `np.sum([3])`)
NUMPY_STATIC_V = Val(TENSOR, attr="numpy-static")
SPARSE_V = Val(TENSOR, attr="sparse")  # a sparse tensor (torch.sparse_coo_tensor(...), t.to_sparse()): FG211
# what arrives at a parameter (Edge.vals ("inst", class), conditions_evaluated.Instance): a tensor, a boolean
# mask, a sparse tensor
MASK_CLASS = "torch.Tensor[bool]"
SPARSE_CLASS = "torch.Tensor[sparse]"
# functions that make a sparse tensor (their result entering the graph breaks it: FG211)
SPARSE_FACTORIES = frozenset({
    "torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_csc_tensor", "torch.sparse_bsr_tensor",
    "torch.sparse_bsc_tensor", "torch.sparse_compressed_tensor", "torch.sparse.FloatTensor",
    "torch.sparse.DoubleTensor", "torch.sparse.LongTensor", "torch.sparse.IntTensor", "torch.sparse.ByteTensor",
    "torch.sparse.HalfTensor", "torch.sparse.BoolTensor",
})
SPARSE_METHODS = frozenset({"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                            "to_sparse_bsc"})
# methods of a sparse tensor that return a sparse tensor
SPARSE_KEEPING_METHODS = frozenset({"coalesce", "t", "transpose", "float", "double", "half", "to", "cpu", "cuda",
                                    "detach", "clone", "requires_grad_"})
# torch functions and tensor methods whose result is a boolean tensor (a mask)
MASK_CALLS = frozenset(f"torch.{n}" for n in (
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "isin", "logical_not", "logical_and",
    "logical_or", "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater", "less", "greater_equal",
    "less_equal", "not_equal", "isclose", "signbit"))
MASK_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_not", "logical_and",
                          "logical_or", "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater", "less",
                          "greater_equal", "less_equal", "not_equal", "isclose", "signbit"})
# methods of a boolean tensor that return a boolean tensor: its shape or layout changed, not its dtype
# (`(x[:, 4] * conf >= thre).squeeze()`, YOLOX's confidence mask)
MASK_KEEPING_METHODS = frozenset({"squeeze", "unsqueeze", "view", "reshape", "flatten", "ravel", "t", "transpose",
                                  "permute", "contiguous", "clone", "detach", "expand", "expand_as", "flip", "roll",
                                  "repeat", "squeeze_", "unsqueeze_", "cpu", "cuda"})


def tensor_kind(v: Val) -> str | None:
    """What a value is as a tensor: "sparse", "mask" (a boolean tensor), "tensor", or None (not known to be one)."""
    if v.kind != TENSOR or v.attr in ("numpy", "numpy-static"):  # (a NumPy array: a tensor to Dynamo only where
        # it traces NumPy)
        return None
    if v.attr == "sparse":
        return "sparse"
    if v.attr == "bool":
        return "mask"
    return "tensor"


def of_tensor_kind(kind: str | None) -> Val | None:
    return {"sparse": SPARSE_V, "mask": BOOL_TENSOR_V, "tensor": TENSOR_V}.get(kind or "")


def tuple_item(v: Val, i: int) -> Val:
    """Item `i` of a TUPLE value."""
    kinds = (v.attr or "").split(",")
    got = of_tensor_kind(kinds[i]) if 0 <= i < len(kinds) else None
    return got if got is not None else U


def return_desc(v: Val) -> str | None:
    """How a returned value is summarised (FunctionSummary.returns_shapes): a tensor kind (tensor_kind), "ret:<q>"
    / "ret:<q>:<i>" for what the function q returns (its item i), resolved by the project; None otherwise."""
    k = tensor_kind(v)
    if k is not None:
        return k
    if v.kind == INSTANCE and v.q:
        item = factory_item(v)
        if item is not None:
            return f"ret:{v.q}:{item}" if item else f"ret:{v.q}"
    return None


def made_desc(v: Val) -> str | None:
    """How a returned value is summarised for the classes it is an instance of (FunctionSummary.returns_made):
    "class:<q>" for an instance of q ("class:A|B" for one of several, chosen by an if/else or from a table of
    classes), "ret:<q>" / "ret:<q>:<i>" for what the function q returns (its item i); None otherwise."""
    if v.kind == INSTANCE and v.q and v.attr in (None, "choice"):
        return f"class:{v.q}"
    d = return_desc(v)
    return d if d is not None and d.startswith("ret:") else None


# torch functions that read tensor data into a Python bool (FG301 at the call)
DD_BOOL_CALLS = ("torch.equal", "torch.allclose", "torch.is_nonzero")
# NumPy draws that return one number unless given a size: function -> position of the size argument
# (rand/randn take the shape as positional dimensions).  The draw breaks the graph (FG108); what it
# returns is then a Python number, computed before the graph resumes.
NUMPY_SCALAR_DRAWS = {"numpy.random.randint": 2, "numpy.random.uniform": 2, "numpy.random.normal": 2,
                      "numpy.random.rand": 0, "numpy.random.randn": 0, "numpy.random.random": 0,
                      "numpy.random.random_sample": 0}


def numpy_scalar_draw(q: str | None, positional: int, keywords) -> bool:
    """A NumPy draw of one number (no size given): `np.random.randint(0, n)`, `np.random.rand()`."""
    size_at = NUMPY_SCALAR_DRAWS.get(q or "")
    return size_at is not None and positional <= size_at and "size" not in keywords


# NumPy functions Dynamo folds to a Python number when every argument is one (`np.sqrt(h * w * 0.3)`):
# verified on 2.13 (not all are: `np.lcm(4, 6)` breaks, `np.sum([1, 2])` is a tensor)
NUMPY_FOLDED_ON_NUMBERS = frozenset(f"numpy.{n}" for n in (
    "sqrt", "exp", "log", "log2", "floor", "ceil", "abs", "sin", "power", "maximum", "minimum", "clip"))

# Functions taking sizes, and where: "all" (every positional argument: `torch.zeros(2, n)`, `torch.arange(a, b)`) or the
# position of the size (`torch.full(size, fill)`, `torch.randint(low, high, size)`: the last); a tuple or list there
# holds sizes, and so does a `size=`/`shape=` keyword.  A size Dynamo holds as a tensor (`x.sum()`, what a NumPy
# call returns) needs its value: "Data dependent operator" (GB0033) under a plain torch.compile, captured under
# fullgraph=True on torch >= 2.10 (verified on 2.13: FG303)
SIZE_ARGS = {
    **{f"torch.{n}": "all" for n in ("zeros", "ones", "empty", "rand", "randn", "arange")},
    "torch.full": 0, "torch.randint": -1,
    **{f"numpy.{n}": 0 for n in ("zeros", "ones", "empty", "full")}, "numpy.arange": "all",
}
TENSOR_SIZE_METHODS = {"new_zeros": "all", "new_ones": "all", "new_empty": "all", "new_full": 0}


def size_needs_value(v: Val) -> bool:
    """Is `v`, given as a size, a tensor to Dynamo, whose value it needs (SIZE_ARGS)?  Not a NumPy result of
    shapes and numbers, which it may fold."""
    return v.kind == TENSOR and v.attr not in ("numpy-static", "sparse")


# Classes an object imported from another project module, or returned by a function, is tried as
# when a method rule has something to say about them (the project keeps the finding only if the
# import is bound to one, or the function returns one).
IMPORTED_INSTANCE_CLASSES = ("logging.Logger", "torch.optim.Optimizer")


def is_instance_of(bound: str, cls: str) -> bool:
    """Is an object the project binds to an instance of class `bound` one of `cls`, a class of
    IMPORTED_INSTANCE_CLASSES (torch.optim.Optimizer: any optimizer, `optimizerD = optim.Adam(...)` in the module a
    training step imports it from)?"""
    return bound == cls or (cls == "torch.optim.Optimizer" and is_optimizer_class(bound))

# ---- compile-state guards ---------------------------------------------------------------------
# True under torch.compile (verified on 2.13: cases guard_*). Canonical qualified names.
GUARD_FUNCTIONS = frozenset({
    "torch.compiler.is_compiling",
    "torch.compiler.is_dynamo_compiling",
    "torch._dynamo.is_compiling",
    "torch._dynamo.external_utils.is_compiling",
    "torch._utils.is_compiling",
    # well-known library wrappers that return one of the above
    "transformers.utils.is_torchdynamo_compiling",
    "transformers.utils.import_utils.is_torchdynamo_compiling",
    "transformers.pytorch_utils.is_torchdynamo_compiling",
})
# False under torch.compile (Dynamo folds them to a constant; verified on 2.11, 2.13 and 2.15):
# `if torch.jit.is_scripting():` is never traced, `if not torch.jit.is_tracing():` always is.
# (NOT guards either: torch.compiler.is_exporting.)
FALSE_UNDER_COMPILE = frozenset({"torch.jit.is_scripting", "torch.jit.is_tracing", "torch.jit._script.is_scripting",
                                 "torch._jit_internal.is_scripting", "torch.jit._trace.is_tracing"})

# ---- torch.compile and escape hatches ---------------------------------------------------------
COMPILE = "torch.compile"
NONSTRICT_TRACE = frozenset({"torch._dynamo.nonstrict_trace", "torch.compiler.nonstrict_trace"})
CUSTOM_OP = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})
TRITON_OP = frozenset({"torch.library.triton_op"})
ALLOW_IN_GRAPH = frozenset({"torch.compiler.allow_in_graph", "torch._dynamo.allow_in_graph"})
DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable"})
# What calling a disabled function breaks with, by its mode (`recursive=False` or not)
DISABLE_GB = {"recursive": "GB0098", "nonrecursive": "GB0099"}
GRAPH_BREAK = frozenset({"torch._dynamo.graph_break"})
IGNORE_LOGGING_SETS = frozenset({
    "torch._dynamo.config.ignore_logging_functions",
    "torch._dynamo.config.ignore_logger_methods",
})
REORDERABLE_SETS = frozenset({"torch._dynamo.config.reorderable_logging_functions"})

# ---- what torch names return ------------------------------------------------------------------
# torch.* callables that do not return a tensor (everything else under torch., torch.nn.functional,
# torch.special, torch.linalg, torch.fft returns tensors or tuples of them).
TORCH_NON_TENSOR = frozenset({
    "is_tensor", "is_storage", "is_floating_point", "is_complex", "is_nonzero", "numel", "equal",
    "allclose", "get_default_dtype", "set_default_dtype", "is_grad_enabled", "compile", "no_grad",
    "enable_grad", "set_grad_enabled", "inference_mode", "is_inference_mode_enabled", "autocast",
    "device", "dtype", "Size", "Generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
    "set_rng_state", "get_num_threads", "set_num_threads", "get_num_interop_threads", "save", "load",
    "finfo", "iinfo", "typename", "result_type", "promote_types", "can_cast", "set_printoptions",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "broadcast_shapes",
    "is_anomaly_enabled", "set_anomaly_enabled", "cond", "vmap", "_assert", "_check", "sym_int",
    "sym_float", "sym_max", "sym_min", "sym_not", "is_autocast_enabled", "get_device",
    "split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "meshgrid",
    "broadcast_tensors", "sort", "topk", "max", "min", "median", "mode", "kthvalue", "aminmax",
    "std_mean", "var_mean", "unique", "unique_consecutive", "frexp", "lu", "qr", "svd", "eig",
    "slogdet", "histogram", "where",
})
# ... of which these return tensors or tuples of tensors: unpacked or iterated, each part is a tensor
TORCH_TENSOR_TUPLES = frozenset({
    "split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "meshgrid", "broadcast_tensors",
    "sort", "topk", "max", "min", "median", "mode", "kthvalue", "aminmax", "std_mean", "var_mean", "unique",
    "unique_consecutive",
})
TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.special.", "torch.linalg.", "torch.fft.")
TORCH_SUBPACKAGES_NON_TENSOR = (
    "torch.cuda.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch._dynamo.", "torch.library.",
    "torch.utils.", "torch.distributed.", "torch.optim.", "torch.nn.", "torch.autograd.", "torch.profiler.",
    "torch.onnx.", "torch.export.", "torch.fx.", "torch.testing.", "torch.hub.", "torch.multiprocessing.",
    "torch.random.", "torch.mps.", "torch.xpu.", "torch.cpu.", "torch.amp.", "torch.func.",
    "torch._higher_order_ops.", "torch._C.", "torch.sparse.", "torch.types.", "torch.overrides.",
)
FLOAT_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.randn_like", "torch.rand_like",
                             "torch.linspace", "torch.logspace", "torch.softmax", "torch.sigmoid"})


def torch_call_returns_tensor(q: str) -> bool:
    if q.startswith(TENSOR_NAMESPACES):
        return True
    if not q.startswith("torch."):
        return False
    if q.startswith(TORCH_SUBPACKAGES_NON_TENSOR):
        return False
    name = q[len("torch."):]
    if "." in name:
        return False
    if name[:1].isupper():  # classes: torch.Tensor(...) and the legacy torch.FloatTensor(...) aside, Size, ...
        return name == "Tensor" or q in TENSOR_TYPES
    return name not in TORCH_NON_TENSOR


# Tensor methods that return static metadata or Python values that are not data-dependent.
TENSOR_STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "storage_offset",
    "is_contiguous", "is_floating_point", "is_complex", "get_device", "type", "__len__",
    "is_pinned", "is_shared", "is_sparse", "has_names", "is_set_to", "register_hook", "requires_grad_",
    "backward", "data_ptr", "storage", "untyped_storage", "tolist", "item", "numpy", "retain_grad",
})
TENSOR_STATIC_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "is_cpu", "requires_grad", "is_leaf", "layout",
    "names", "is_sparse", "is_quantized", "is_meta", "itemsize", "nbytes",
})
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "grad", "data", "real", "imag"})
# Methods distinctive enough that an unknown receiver is taken to be a tensor (or a numpy array,
# which Dynamo traces as a tensor).  Kept short on purpose: precision over recall.
TENSOR_DISTINCTIVE_METHODS = frozenset({
    "sum", "mean", "any", "all", "norm", "std", "var", "prod", "argmax", "argmin", "abs", "amax",
    "amin", "isnan", "isinf", "isfinite", "softmax", "log_softmax", "sigmoid", "exp", "sqrt", "rsqrt",
    "matmul", "detach", "contiguous", "masked_fill", "eq", "ne", "gt", "lt", "ge", "le", "float",
    "double", "half", "bfloat16", "cumsum", "logsumexp", "nansum", "squeeze", "unsqueeze",
    "transpose", "permute", "flatten", "clamp", "relu", "tanh",
})
FLOAT_METHODS = frozenset({"float", "double", "half", "bfloat16", "mean", "softmax", "log_softmax",
                           "sigmoid", "exp", "sqrt", "rsqrt", "std", "var", "norm", "tanh", "logsumexp"})

# torch.utils.cpp_extension loaders return a module of compiled (pybind) functions.
EXTENSION_LOADERS = frozenset({"torch.utils.cpp_extension.load_inline", "torch.utils.cpp_extension.load"})
EXTENSION_MODULE = "<cpp_extension module>"

# nn containers whose elements are called by iterating or indexing them.
MODULE_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})
NN_MODULE = "torch.nn.Module"
AUTOGRAD_FUNCTION = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})

# Registering a hook makes the hook function part of the module's call.
HOOK_METHODS = frozenset({
    "register_forward_hook", "register_forward_pre_hook",
})

# Canonical spellings of re-exported names (so rules match one qualified name).
CANONICAL = {
    "torch.Tensor": "torch.Tensor",
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "torch.nn.modules.container.ModuleList": "torch.nn.ModuleList",
    "torch.nn.modules.container.Sequential": "torch.nn.Sequential",
    "torch.nn.modules.container.ModuleDict": "torch.nn.ModuleDict",
    "torch._dynamo.eval_frame.disable": "torch._dynamo.disable",
    "torch._dynamo.decorators.disable": "torch._dynamo.disable",
    "torch._dynamo.decorators.graph_break": "torch._dynamo.graph_break",
    "torch._dynamo.decorators.nonstrict_trace": "torch._dynamo.nonstrict_trace",
    "torch._dynamo.decorators.allow_in_graph": "torch._dynamo.allow_in_graph",
    "torch.autograd.function.Function": "torch.autograd.Function",
    "logging.RootLogger": "logging.Logger",
    "tqdm.tqdm": "tqdm.tqdm",
    "tqdm.auto.tqdm": "tqdm.tqdm",
    "tqdm.notebook.tqdm": "tqdm.tqdm",
}


def canonical(q: str) -> str:
    return CANONICAL.get(q, q)


# a module made by a method of self, in ClassSummary.attrs (`self.model = self._build_model().to(device)`) or
# .containers (`self.convs.append(self.init_conv(...))`): "@self._build_model" -- what the method of the
# instance's class returns (Resolver.attr_types)
SELF_MADE = "@self."
MODE_KEY = "@training"  # in a compiled object's call's Edge.vals: the module's mode at that call
# nn.Module methods that return the module itself (`torch.compile(Net().to(device).eval())`)
MODULE_SELF_METHODS = frozenset({"eval", "train", "to", "cuda", "cpu", "half", "float", "double", "bfloat16",
                                 "requires_grad_", "share_memory", "to_empty", "apply", "xpu", "mtia",
                                 "ipu"})

# annotations that make a parameter a tensor (`x: torch.Tensor`, `labels: Optional[torch.LongTensor]`)
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"} | {
    f"torch.{k}Tensor" for k in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte",
                                 "Bool")})

# submodules torch's own `__init__` makes on a module, read for a project class deriving from it (`class
# TransformerModel(nn.Transformer)` calls `self.encoder(...)`, which nn.Transformer.__init__ assigned); an
# attribute the project's classes assign themselves is theirs (Resolver.attr_types)
TORCH_MODULE_ATTRS = {
    "torch.nn.Transformer": {"encoder": "torch.nn.TransformerEncoder", "decoder": "torch.nn.TransformerDecoder"},
    "torch.nn.modules.transformer.Transformer": {"encoder": "torch.nn.TransformerEncoder",
                                                 "decoder": "torch.nn.TransformerDecoder"},
}

# recurrent modules Dynamo does not trace unless torch._dynamo.config.allow_rnn (FG208)
RNN_MODULES = frozenset({"torch.nn.RNN", "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.modules.rnn.RNN",
                         "torch.nn.modules.rnn.LSTM", "torch.nn.modules.rnn.GRU"})
# modules whose operator has no fake-tensor kernel on torch 2.13 (FG209)
def factory_item(v: Val) -> str | None:
    """For what a factory function returned (`make_model()`): "" for the whole value, the item's position
    ("0", "1", ...) for one item of the tuple it returned (`model, crit = build()`); None otherwise."""
    a = v.attr
    if a == "factory":
        return ""
    if a is not None and a.startswith("factory[") and a.endswith("]"):
        return a[8:-1]
    return None


def is_optimizer_class(q: str) -> bool:
    """A torch.optim optimizer (not a learning-rate scheduler)."""
    return q.startswith("torch.optim.") and ".lr_scheduler." not in q


NO_FAKE_KERNEL_MODULES = frozenset({"torch.nn.CTCLoss", "torch.nn.modules.loss.CTCLoss"})


def is_torch_module_class(q: str) -> bool:
    """torch.nn.Module, or one of torch's layers (`torch.nn.BatchNorm1d`, `torch.nn.modules.conv.Conv2d`)."""
    if q == NN_MODULE:
        return True
    head, _, last = q.rpartition(".")
    return (head == "torch.nn" or head.startswith("torch.nn.modules.")) and last[:1].isupper() and \
        last not in ("Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer")

TENSOR_CLASS = "torch.Tensor"  # what conditions.Instance holds for a tensor argument

PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                               "torch.nn.parameter.Buffer"})
