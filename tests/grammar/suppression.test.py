# SYNTAX TEST "source.python" "fullgraph suppression comments: highlighted in comments"

# A list of codes after code on the same line: each part gets its own scope.
x = model(x)  # fullgraph: ignore[FG101, FG2]
#               ^^^^^^^^^ comment.line.number-sign.python meta.suppression.fullgraph.python keyword.other.fullgraph.python
#                        ^ punctuation.separator.key-value.fullgraph.python
#                          ^^^^^^ comment.line.number-sign.python keyword.control.ignore.fullgraph.python
#                                ^ punctuation.definition.list.begin.fullgraph.python
#                                 ^^^^^ variable.other.constant.rule-code.fullgraph.python
#                                      ^ punctuation.separator.list.fullgraph.python - variable.other.constant.rule-code.fullgraph.python
#                                        ^^^ variable.other.constant.rule-code.fullgraph.python
#                                           ^ punctuation.definition.list.end.fullgraph.python
#            ^^ source.python - meta.suppression.fullgraph.python

# Bare ignore (every rule) on its own line and after code.
# fullgraph: ignore
# ^^^^^^^^^ keyword.other.fullgraph.python
#            ^^^^^^ keyword.control.ignore.fullgraph.python
print(x)  # fullgraph: ignore
#           ^^^^^^^^^ keyword.other.fullgraph.python
#                      ^^^^^^ keyword.control.ignore.fullgraph.python
#                            ^ - meta.suppression.fullgraph.python

# Case does not matter to the server, so it does not matter here either.
y = x.item()  # FullGraph: IGNORE[fg101]
#               ^^^^^^^^^ keyword.other.fullgraph.python
#                          ^^^^^^ keyword.control.ignore.fullgraph.python
#                                 ^^^^^ variable.other.constant.rule-code.fullgraph.python

# No space after '#', none after ':', a single code.
z = y.tolist()  #fullgraph:ignore[FG301]
#                ^^^^^^^^^ keyword.other.fullgraph.python
#                          ^^^^^^ keyword.control.ignore.fullgraph.python
#                                 ^^^^^ variable.other.constant.rule-code.fullgraph.python

# A second comment marker inside one comment, e.g. after another tool's pragma.
w = len(x)  # noqa: E501  # fullgraph: ignore[FG101]
#             ^^^^ comment.line.number-sign.python - keyword.other.fullgraph.python
#                           ^^^^^^^^^ keyword.other.fullgraph.python
#                                             ^^^^^ variable.other.constant.rule-code.fullgraph.python

# After a type comment (MagicPython gives those their own comment scope).
v = []  # type: list[int]  # fullgraph: ignore[FG101]
#                            ^^^^^^^^^ keyword.other.fullgraph.python
#                                              ^^^^^ variable.other.constant.rule-code.fullgraph.python

# Inside an indented block.
def forward(self, x):
    return self.helper(x)  # fullgraph: ignore[FG201]
#                            ^^^^^^^^^ keyword.other.fullgraph.python
#                                              ^^^^^ variable.other.constant.rule-code.fullgraph.python
