"""Why the walk from a compiled root stops, and the words each front-end says it in (api.py: the editor's FG003
diagnostics and the JSON's `unfollowed_calls`; cli.py: the `-v` listing): a compile call whose target is not
followed (Project.unresolved_roots' reason) and a call from compiled code that is not (Project.unfollowed_calls').
"""
from __future__ import annotations

# a compile call: what it compiles is not visible, the function or class it names is not found, or it is in a
# module `importlib.import_module` imports by a name not decided (engine/imported_names.py); any other reason
# is a replaced method's, in words ("assigned in `__init__`": Project.unresolved_roots)
UNRESOLVED, NOT_FOUND, IMPORTLIB = "unresolved", "not found", "importlib"
_ROOT_WORDS = {
    UNRESOLVED: "what it compiles is not visible to static analysis",
    NOT_FOUND: "the function or class it names was not found",
    IMPORTLIB: "it comes from a module `importlib.import_module` imports by a name made at run time",
}
# a call from compiled code: a name not in the analysed code (an installed package not followed), a local whose
# value is made at run time, or a function of a module imported by a name not decided; any other reason is in
# words (a module handed to `__init__`: held_words)
NOT_ANALYSED, VALUE = "", "value"
_CALL_WORDS = {
    NOT_ANALYSED: "not in the analysed code",
    VALUE: "a value made at run time",
    IMPORTLIB: "a function of a module `importlib.import_module` imports by a name made at run time",
}


def is_replaced(why: str) -> bool:
    """A replaced method's reason (`self.step = hook(self.step)`), as against a compile call's."""
    return why not in _ROOT_WORDS


def root_words(why: str) -> str:
    """Why a compile call (or the replaced method a compiled call reaches) is not followed."""
    return _ROOT_WORDS.get(why) or f"{why}; what it holds is not visible to static analysis"


def call_words(why: str) -> str:
    """Why a call from compiled code is not followed."""
    return _CALL_WORDS.get(why, why)


def held_words(attr: str, made: str, param: str, place: str, what: tuple) -> str:
    """Why `self.<attr>(...)` is not followed when it holds what a construction (`made`, the class's name, at
    `place`) gives `__init__`'s `param` and the analysis cannot type that (Arrivals.handed_unknown's `what`)."""
    kind = what[0]
    given = ("a value made at run time" if kind == "value"
             else f"what `{what[1].rpartition('.')[2]}(...)` returns, which is not followed" if kind == "returned"
             else f"`{what[1]}`, a parameter of `{what[2]}` whose value is not known" if kind == "param"
             else f"`self.{what[1]}` in `{what[2]}`, whose module is not known" if kind == "selfattr"
             else "what its `*args`/`**kwargs` hold")
    return f"`self.{attr}` holds what `{made}(...)` at {place} is given for `{param}`: {given}"


def made_words(attr: str, made: str) -> str:
    """Why `self.<attr>(...)` is not followed when `__init__` sets it to what a function of the project returns
    (`self.layers = clones(Block(), 2)`) and the analysis cannot tell the class of that."""
    return f"`self.{attr}` holds what `{made}(...)` returns, whose class the analysis cannot tell"
