"""FG0xx: files fullgraph cannot analyse (reported by the api when it reads a file, api.py: no event to check)."""
from __future__ import annotations

from .base import Rule


class SyntaxErrorRule(Rule):
    code = "FG001"
    name = "syntax-error"
    summary = "the file does not parse; nothing in it was analysed"
    verified = "not a Dynamo rule"
    what = "Reports a file Python cannot parse (the first syntax error), so a clean result is never silent about it."
    why = "A file that does not parse cannot be imported, let alone compiled; fullgraph analyses nothing in it."
    instead = "Fix the syntax error."


class UnreadableFile(Rule):
    code = "FG002"
    name = "unreadable-file"
    summary = "the file is binary, not valid text, or too large to analyse"
    verified = "not a Dynamo rule"
    what = "Reports a `.py` file that is not UTF-8 text (or its declared encoding), contains NUL bytes, or is over the size limit."
    why = "fullgraph analyses Python source text only."
    instead = "Exclude generated or binary files with `exclude` / `extend-exclude` in `[tool.fullgraph]`."


class UnfollowedRoot(Rule):
    code = "FG003"
    name = "unfollowed-compile"
    summary = ("a torch.compile call, a call from compiled code or a replaced method that fullgraph cannot follow: "
               "the graph breaks behind it are not checked")
    verified = "not a Dynamo rule"
    what = """Marks (as information, in the editor) a `torch.compile(...)` call or `.compile()` whose compiled
function or module the analysis cannot see: a value made at run time (`getattr(models, name)(...)`, a hub
entry point), or a name it does not find; and a call from compiled code into code that is not analysed (a
package that is not followed, a module it cannot find), a module handed to `__init__` that a construction
makes in a way it cannot see (`self.attention(x)` with `Holder(make_attention(name))`, `make_attention` making
it by name), or a method replaced at run time by something it cannot see (`self.step = hook(self.step)` with
`hook` passed in).  The command line counts them in its summary; `-v` lists them."""
    why = "Nothing reached from that call is analysed, so no finding there is not the same as no graph break."
    instead = """Name the compiled function or class in `[tool.fullgraph]` `roots = ["pkg.module:Model.forward"]`,
or compile something the source names (`torch.compile(Model(...))`); add the package a call goes into to
`follow` (`--follow PACKAGE`); construct the module handed to `__init__` where the construction is
(`Holder(Attention())`, or a class picked by an if/else)."""
