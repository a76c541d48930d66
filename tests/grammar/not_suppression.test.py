# SYNTAX TEST "source.python" "fullgraph suppression comments: not highlighted outside comments or when malformed"

# In a string, a docstring, an f-string and a bytes literal it is text, not a suppression.
s = "# fullgraph: ignore[FG101]"
#      ^^^^^^^^^ string.quoted.single.python - keyword.other.fullgraph.python
#                 ^^^^^^ - keyword.control.ignore.fullgraph.python
#                        ^^^^^ - variable.other.constant.rule-code.fullgraph.python
t = f"{s}  # fullgraph: ignore"
#            ^^^^^^^^^ string.interpolated.python - keyword.other.fullgraph.python
b = b'# fullgraph: ignore[FG101]'
#      ^^^^^^^^^ - keyword.other.fullgraph.python


def helper(x):
    """Call me from forward.

    # fullgraph: ignore[FG101]
#     ^^^^^^^^^ string.quoted.docstring.multi.python - keyword.other.fullgraph.python
#                       ^^^^^ - variable.other.constant.rule-code.fullgraph.python
    """
    return x


# 'fullgraph' elsewhere in a comment is prose.
# see the fullgraph: ignore docs
#         ^^^^^^^^^ comment.line.number-sign.python - keyword.other.fullgraph.python
# fullgraph is a linter
# ^^^^^^^^^ - keyword.other.fullgraph.python

# An unclosed list or one with other characters is a bare ignore for the server: no code is highlighted.
a = 1  # fullgraph: ignore[FG101
#        ^^^^^^^^^ keyword.other.fullgraph.python
#                   ^^^^^^ keyword.control.ignore.fullgraph.python
#                         ^^^^^^ - variable.other.constant.rule-code.fullgraph.python punctuation.definition.list.begin.fullgraph.python
c = 1  # fullgraph: ignore[FG-101]
#                          ^^ - variable.other.constant.rule-code.fullgraph.python

# A colon with a space before it is not the server's syntax.
d = 1  # fullgraph : ignore[FG101]
#        ^^^^^^^^^ - keyword.other.fullgraph.python
