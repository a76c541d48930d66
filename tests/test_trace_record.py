"""The runtime record's API (what the language server calls) and Dynamo-message parsing. No torch runs here."""
from __future__ import annotations

import hashlib
import json
import logging
import os
import textwrap

import pytest
from fullgraph.trace.collect import (
    Process,
    build_record,
    error_hit,
    graph_break_hit,
    parse_text_log,
)
from fullgraph.trace.parse import (
    gb_code_for_type,
    is_library_path,
    original_function,
    parse_frames,
    parse_message,
)
from fullgraph.trace.record import (
    Break,
    Record,
    load_record,
    runtime_findings,
    save_record,
)

SRC = textwrap.dedent('''\
    import torch


    @torch.compile(fullgraph=True)
    def f(x):
        y = x * 2
        print("value", y)
        return y
''')


def make_record(tmp_path, text=SRC, fullgraph=True, name="m.py"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    b = Break(path=str(p), line=7, column=5, end_line=7, end_column=22, gb_type="Failed to trace builtin operator",
              gb_code="GB0059", explanation="Dynamo does not know how to trace builtin operator `print`\nsecond line",
              hints=["Avoid calling builtin `print`", "Please report an issue to PyTorch."],
              stack=[{"path": str(p), "line": 12, "function": "<module>"}, {"path": str(p), "line": 7, "function": "f"}],
              root={"path": str(p), "line": 4, "function": "f", "fullgraph": fullgraph}, count=3,
              exc_class="Unsupported")
    r = Record(command=["python", name], exit_code=0, torch_version="2.13.0+cpu",
               files={str(p): hashlib.sha1(p.read_bytes()).hexdigest()}, breaks=[b])
    return p, r


# ---- load_record ----------------------------------------------------------------------------------
def test_round_trip(tmp_path):
    _, r = make_record(tmp_path)
    out = tmp_path / ".fullgraph" / "breaks.json"
    save_record(r, str(out))
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)  # a normal file, not mkstemp's private one
    assert [f.name for f in out.parent.iterdir()] == ["breaks.json"]  # no temp file left
    back = load_record(str(out))
    assert back is not None and back.to_json() == r.to_json()


@pytest.mark.parametrize("content", [
    b"",                                        # empty
    b'{"version": 1, "breaks": [',              # truncated mid-write
    b"\xff\xfe not utf-8",
    b"[1, 2, 3]",                               # not an object
    b'{"version": 99, "breaks": []}',           # another version
    b"null",
    b'{"version": 1, "breaks": ' + b"[" * 100000 + b"]" * 100000 + b"}",  # absurd nesting
])
def test_load_record_never_raises(tmp_path, caplog, content):
    p = tmp_path / "breaks.json"
    p.write_bytes(content)
    with caplog.at_level(logging.INFO, logger="fullgraph.trace"):
        assert load_record(str(p)) is None
    assert caplog.records, "the reason is logged"


def test_load_record_missing_file(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="fullgraph.trace"):
        assert load_record(str(tmp_path / "nope.json")) is None
    assert "cannot read" in caplog.text


def test_load_record_skips_malformed_breaks(tmp_path, caplog):
    _, r = make_record(tmp_path)
    d = r.to_json()
    d["breaks"].append({"path": 3, "line": "x"})
    d["breaks"].append("garbage")
    (tmp_path / "r.json").write_text(json.dumps(d))
    with caplog.at_level(logging.WARNING, logger="fullgraph.trace"):
        back = load_record(str(tmp_path / "r.json"))
    assert back is not None and len(back.breaks) == 1
    assert "skipping break #1" in caplog.text and "skipping break #2" in caplog.text


# ---- runtime_findings -----------------------------------------------------------------------------------
def test_runtime_findings_for_unchanged_file(tmp_path):
    p, r = make_record(tmp_path)
    (f,) = runtime_findings(r, str(p), SRC)
    assert f.origin == "runtime" and f.severity == "error" and f.code == "GB0059"
    assert (f.span.start.line, f.span.start.col, f.span.end.line, f.span.end.col) == (6, 4, 6, 21)
    assert f.message.startswith("Failed to trace builtin operator: Dynamo does not know how to trace builtin")
    assert "(hit 3 times)" in f.message and "second line" not in f.message
    assert f.data["hints"] == ["Avoid calling builtin `print`", "Please report an issue to PyTorch."]
    assert f.data["stack"][-1] == {"path": str(p), "line": 7, "function": "f"}
    assert f.root is not None and f.root.fullgraph and f.root.location.span.start.line == 3
    assert f.url.endswith("/gb/gb0059.html") and f.gb_codes == ("GB0059",)


def test_runtime_findings_dropped_when_the_file_changed(tmp_path):
    p, r = make_record(tmp_path)
    assert runtime_findings(r, str(p), "\n" + SRC) == []   # a line inserted above: lines moved
    assert runtime_findings(r, str(p), SRC.replace("2", "3")) == []
    assert runtime_findings(None, str(p), SRC) == []
    assert runtime_findings(r, str(tmp_path / "other.py"), SRC) == []


def test_runtime_findings_severity_and_encodings(tmp_path):
    p, r = make_record(tmp_path, fullgraph=False)
    assert runtime_findings(r, str(p), SRC)[0].severity == "warning"
    r.breaks[0].root["fullgraph"] = None
    assert runtime_findings(r, str(p), SRC)[0].severity == "warning"
    # CRLF file: the editor's text keeps \r\n, which is what was hashed
    crlf = SRC.replace("\n", "\r\n")
    p2, r2 = make_record(tmp_path, text=crlf, name="crlf.py")
    p2.write_bytes(crlf.encode())
    r2.files = {str(p2): hashlib.sha1(crlf.encode()).hexdigest()}
    assert len(runtime_findings(r2, str(p2), crlf)) == 1
    # a UTF-8 BOM on disk is not part of the editor's text
    bom = b"\xef\xbb\xbf" + SRC.encode()
    r.files = {str(p): hashlib.sha1(bom).hexdigest()}
    assert len(runtime_findings(r, str(p), SRC)) == 1


def test_runtime_findings_path_forms(tmp_path):
    p, r = make_record(tmp_path)
    link = tmp_path / "link.py"
    os.symlink(p, link)
    assert len(runtime_findings(r, str(link), SRC)) == 1
    assert len(runtime_findings(r, str(tmp_path / "." / "m.py"), SRC)) == 1


def test_no_columns_means_whole_line(tmp_path):
    p, r = make_record(tmp_path)
    b = r.breaks[0]
    b.column = b.end_column = b.end_line = None
    (f,) = runtime_findings(r, str(p), SRC)
    assert (f.span.start.col, f.span.end.col) == (4, len('    print("value", y)'))


# ---- messages and tracebacks --------------------------------------------------------------------------------
GB_MSG = textwrap.dedent('''\
    Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

    Data-dependent branching
      Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.

          The branch condition involves a tensor computed as follows:
            gt = gt(sum_1, 0)

      Hint: For the common pattern `if tensor_cond: x = transform(x)`, consider making the code branchless.
      Hint: Use `torch.cond` to express dynamic control flow.

      Developer debug context: attempted to jump with TensorVariable()

     For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html
''')


def test_parse_graph_break_message():
    m = parse_message(GB_MSG)
    assert m.gb_type == "Data-dependent branching" and m.gb_code == "GB0170"
    assert m.explanation.splitlines()[0].startswith("Detected data-dependent branching")
    assert "gt = gt(sum_1, 0)" in m.explanation
    assert m.hints == ["For the common pattern `if tensor_cond: x = transform(x)`, consider making the code branchless.",
                       "Use `torch.cond` to express dynamic control flow."]


def test_parse_chained_message_keeps_first_type_and_mentions_the_second():
    text = textwrap.dedent('''\
        Failed to trace builtin operator
          Explanation: Dynamo does not know how to trace builtin operator `print`
          Hint: Avoid calling builtin `print`

          Developer debug context: builtin print

         For more details about this graph break, please visit: https://x/gb/gb0059.html

        *** While handling this graph break, another graph break occurred: ***

        graph break in loop
          Explanation: torch.compile detected a graph break in a for/while loop.
          Hint: This graph break may have been caused by an earlier graph break.
    ''')
    m = parse_message(text)
    assert m.gb_type == "Failed to trace builtin operator" and m.gb_code == "GB0059"
    assert "graph break in loop: torch.compile detected a graph break in a for/while loop." in m.explanation
    assert m.hints == ["Avoid calling builtin `print`", "This graph break may have been caused by an earlier graph break."]


def test_gb_code_from_the_registry_when_there_is_no_link():
    pytest.importorskip("torch")
    assert gb_code_for_type("Call to `torch._dynamo.graph_break()`") == "GB0025"
    m = parse_message("Call to `torch._dynamo.graph_break()`\n  Explanation: User-inserted graph break.\n")
    assert m.gb_code == "GB0025"
    assert gb_code_for_type("no such graph break type") is None


def test_data_dependent_user_error():
    tb = textwrap.dedent('''\
        Traceback (most recent call last):
          File "/x/eval_frame.py", line 1177, in compile_wrapper
            raise e.with_traceback(
        torch._dynamo.exc.UserError: Consider annotating your code using torch._check*(). Could not guard on data-dependent expression zuf0 > 0.0 (unhinted: zuf0 > 0.0).  (Size-like symbols: none)

        consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.
        Caused by: if n > 0:  # s2.py:10 in h (_dynamo/variables/tensor.py:2606 in evaluate_expr)
        For more information, run with TORCH_LOGS="dynamic"

        User Stack (most recent call last):
          (snipped, see stack below for prefix)
          File "/tmp/s2.py", line 10, in h
            if n > 0:
               ^^^^^^

        from user code:
           File "/tmp/s2.py", line 10, in h
            if n > 0:
               ^^^^^^

        Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace
    ''')
    hit = error_hit(tb)
    assert hit is not None
    m = hit.message
    assert m.exc_class == "UserError" and m.gb_code is None
    assert m.gb_type.startswith("Consider annotating your code using torch._check*(). Could not guard on data-dependent")
    assert m.explanation.startswith("Caused by: if n > 0:")
    assert "TORCH_LOGS" not in m.explanation
    assert [(f.path, f.line, f.function, f.marker) for f in hit.stack] == [("/tmp/s2.py", 10, "h", (3, 9))]


def test_frames_and_markers():
    text = ('  File "/a/b.py", line 3, in <module>\n    f(x)\n'
            '  File "/a/c.py", line 11, in f\n    y = helper(y)\n        ^^^^^^^^^\n'
            '  File "/a/c.py", line 20, in g\n    return a + b\n           ~~^~~\n')
    frames = parse_frames(text)
    assert [(f.path, f.line, f.function, f.code, f.marker) for f in frames] == [
        ("/a/b.py", 3, "<module>", "f(x)", None),
        ("/a/c.py", 11, "f", "y = helper(y)", (4, 13)),
        ("/a/c.py", 20, "g", "return a + b", (7, 12)),
    ]


def test_resume_names_and_library_paths():
    assert original_function("torch_dynamo_resume_in_forward_at_12") == "forward"
    assert original_function("torch_dynamo_resume_in_torch_dynamo_resume_in_f_at_3_at_9") == "f"
    assert original_function("f") == "f"
    assert is_library_path("/usr/lib/python3.11/json/encoder.py")
    assert is_library_path("/venv/lib/python3.11/site-packages/torch/nn/modules/module.py")
    assert is_library_path(os.path.join(os.path.dirname(os.__file__), "json", "__init__.py"))
    assert is_library_path("<frozen runpy>")
    assert not is_library_path("/home/me/project/train.py")


# ---- text logs --------------------------------------------------------------------------------------------
def test_text_log_duplicates_count_and_interleaved_output(tmp_path):
    src = tmp_path / "t.py"
    src.write_text("import torch\n\n@torch.compile\ndef f(x):\n    print('hi')\n    return x\n")
    pre = "V1129 17:49:09.750000 9373 torch/_dynamo/symbolic_convert.py:5124] [0/0] [__graph_breaks] "
    dup = "V1129 17:49:10.750000 9373 torch/_dynamo/symbolic_convert.py:5131] [1/0] [__graph_breaks] "
    full = [f"Graph break in user code at {src}:5",
            "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):",
            "", "Failed to trace builtin operator",
            "  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str']",
            "  Hint: Avoid calling builtin `print`", "",
            "  Developer debug context: builtin print", "",
            " For more details about this graph break, please visit: https://x/gb/gb0059.html", "",
            "User code traceback:", f'  File "{src}", line 9, in <module>', "    f(torch.ones(2))",
            f'  File "{src}", line 5, in f', "    print('hi')", ""]
    log = "\n".join(pre + ln for ln in full) + "\nhi\nsome program output\n" + "\n".join(
        dup + ln for ln in [f"Graph break (user stack suppressed due to duplicate graph break) in user code at {src}:5",
                            "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):",
                            "", "Failed to trace builtin operator",
                            "  Explanation: Dynamo does not know how to trace builtin operator `print`"]) + "\n"
    procs = parse_text_log(log)
    record = build_record(procs, source="torch_logs", use_static_roots=True)
    (b,) = record.breaks
    assert (b.line, b.column, b.end_column, b.gb_code, b.count) == (5, 5, 16, "GB0059", 2)
    assert b.root == {"path": str(src.resolve()), "line": 3, "function": "f", "fullgraph": False}
    assert record.files == {str(src.resolve()): hashlib.sha1(src.read_bytes()).hexdigest()}


def test_imported_log_of_an_edited_file_is_not_vouched_for(tmp_path):
    src = tmp_path / "t.py"
    src.write_text("import torch\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    return x\n")  # print() gone
    payload = (f"Graph break in user code at {src}:5\nGraph Break Reason: Failed to trace builtin operator\n"
               "  Explanation: Dynamo does not know how to trace builtin operator `print`\n\nUser code traceback:\n"
               f'  File "{src}", line 5, in f\n    print(\'hi\')\n\n')
    proc = Process(pid=1)
    proc.feed_event({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"},
                     "frame_id": 0, "frame_compile_id": 0}, payload)
    record = build_record([proc], source="torch_trace")
    (b,) = record.breaks
    assert b.column is None  # the printed line is not in the file any more
    assert record.files == {}  # so editors will not show it
    assert runtime_findings(record, str(src), src.read_text()) == []


def test_skip_frame_record_and_error_in_same_compile_count_once():
    gb = graph_break_hit("Graph break in user code at /p/a.py:4\nGraph Break Reason: Failed to handle graph break "
                         "gracefully.\n\nFailed to trace builtin operator\n  Explanation: no print\n\n"
                         "User code traceback:\n  File \"/p/a.py\", line 4, in loop\n    print(i)\n\n")
    assert gb is not None and gb.message.gb_type == "Failed to trace builtin operator"
    proc = Process(pid=1)
    meta = {"artifact": {"name": "dynamo_graph_break_reason"}, "frame_id": 2, "frame_compile_id": 0}
    proc.feed_event({"dynamo_start": {"stack": [{"line": 1, "name": "loop", "filename": "/p/a.py"}]},
                     "frame_id": 2, "frame_compile_id": 0}, None, fullgraph=False)
    proc.feed_event(meta, "Graph break in user code at /p/a.py:4\nGraph Break Reason: Failed to trace builtin operator\n"
                          "  Explanation: no print\n\nUser code traceback:\n  File \"/p/a.py\", line 4, in loop\n    print(i)\n")
    err = ("Traceback (most recent call last):\n  File \"/t/convert_frame.py\", line 1, in _compile\n    x()\n"
           "torch._dynamo.exc.Unsupported: Failed to trace builtin operator\n  Explanation: no print\n\n"
           "from user code:\n   File \"/p/a.py\", line 4, in loop\n    print(i)\n")
    proc.feed_event({"artifact": {"name": "dynamo_error"}, "frame_id": 2, "frame_compile_id": 0}, err)
    proc.feed_event({"compilation_metrics": {"fail_type": "Unsupported", "fail_reason": "Failed to trace builtin operator",
                                             "co_name": "loop", "co_filename": "/p/a.py"},
                     "frame_id": 2, "frame_compile_id": 0}, None)
    assert len(proc.hits) == 1 and proc.hits[0].fullgraph is False


# ---- compare ----------------------------------------------------------------------------------------------
def test_compare_matches_by_line_or_statement(tmp_path):
    from fullgraph.model import Finding
    from fullgraph.positions import Span
    from fullgraph.trace.compare import compare

    src = textwrap.dedent('''\
        import torch


        @torch.compile
        def f(x):
            total = helper(
                x,
                print("inside a call over three lines"),
            )
            print("next statement")
            return total
    ''')
    p = tmp_path / "s.py"
    p.write_text(src)

    def brk(line):
        return Break(path=str(p), line=line, column=None, end_line=None, end_column=None,
                     gb_type="Failed to trace builtin operator", gb_code="GB0059")

    def finding(line, code="FG101"):
        return Finding(path=str(p), code=code, name="print-call", message="print", severity="warning",
                       span=Span.of(line - 1, 8, line - 1, 20))

    record = Record(files={str(p): hashlib.sha1(p.read_bytes()).hexdigest()},
                    breaks=[brk(6), brk(10)])
    c = compare(record, [finding(8), finding(11, "FG999"), finding(1, "FG001")])
    assert [(b.line, f.span.start.line + 1) for b, f in c.found] == [(6, 8)]  # same statement, other line
    assert [b.line for b in c.missed] == [10]  # the finding at 11 is another statement
    assert [f.span.start.line + 1 for f in c.unconfirmed] == [11]  # FG001 (syntax) is not a graph break
    p.write_text(src + "\n")
    c = compare(record, [finding(8)])
    assert c.stale_files == [str(p)] and not c.found and not c.missed and not c.unconfirmed


def test_run_command_leaves_this_process_alone(tmp_path):
    """Capture is only for the command's processes: our own environment and sys.path do not change."""
    import sys

    from fullgraph.trace.run import run_command

    before_env, before_path = dict(os.environ), list(sys.path)
    code = "import os; print(os.environ['FULLGRAPH_TRACE_PARTS'] != '')"
    record, status, hooked = run_command([sys.executable, "-c", code], cwd=str(tmp_path))
    assert (status, hooked, record.breaks, record.exit_code) == (0, 1, [], 0)
    assert dict(os.environ) == before_env and sys.path == before_path
    assert "_fullgraph_trace_hook" not in sys.modules
    assert list(tmp_path.iterdir()) == []


def test_break_whose_root_is_library_code_has_a_path():
    """Dynamo can compile a library frame on its own (transformers' wrappers): no user frames."""
    from fullgraph.trace.record import Break, _steps

    lib = "/usr/lib/python3/site-packages/transformers/utils/output_capturing.py"
    b = Break(path=lib, line=239, column=None, end_line=None, end_column=None, gb_type="Unsupported context manager",
              gb_code="GB0142", stack=[{"path": lib, "line": 230, "function": "wrapper"},
                                      {"path": lib, "line": 239, "function": "inner"}],
              root={"path": lib, "line": 225, "function": "wrapper", "fullgraph": False})
    steps = _steps(b)
    assert [s.qualname for s in steps] == ["wrapper", "inner"]


# ---- recompiles ------------------------------------------------------------------------------------------
RC_SRC = textwrap.dedent('''\
    import torch


    def step(x, lr):
        return x * lr


    class Counter(torch.nn.Module):
        def forward(self, x):
            self.calls += 1
            return x * self.calls
''')


def test_a_version_1_record_without_recompiles_still_loads(tmp_path):
    p, r = make_record(tmp_path)
    old = r.to_json()
    old["version"] = 1
    del old["recompiles"]
    path = tmp_path / "breaks.json"
    path.write_text(json.dumps(old))
    back = load_record(str(path))
    assert back is not None and back.recompiles == [] and len(back.breaks) == 1
    assert back.to_json()["version"] == 2  # written again, it is a version 2 record
    assert len(runtime_findings(back, str(p), SRC)) == 1


def test_guard_failures_as_dynamo_words_them():
    from fullgraph.trace.parse import parse_guard_failure

    g = parse_guard_failure('0/1: self.step == 3                                  # self.step += 1  # '
                            'mp/t.py:28 in forward (HINT: torch.compile considers integer attributes of the '
                            'nn.Module to be static. Or (this).)\nUser stack trace:\n  File "/tmp/t.py", line 28, '
                            'in forward\n    self.step += 1')
    assert (g.entry, g.guard, g.subject) == ("0/1", "self.step == 3", "self.step")
    assert g.hint.startswith("torch.compile considers") and g.hint.endswith("Or (this).")
    assert [(f.path, f.line, f.function) for f in g.frames] == [("/tmp/t.py", 28, "forward")]
    cases = {
        "0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4": "x",
        "0/5: GLOBAL_STATE changed: grad_mode ": None,
        "0/2: ___check_type_id(xs, 140528641733440), type=<class 'list'>  # y = len(xs)  # t.py:6 in f": "xs",
        "0/4: G['FLAG'] == True                    # if FLAG:  # t.py:5 in f": "G['FLAG']",
        "0/2: len(xs) == 2                         # y = y + len(xs)  # t.py:6 in f": "xs",
        "L['self'].step == 3": "L['self'].step",
        "0/3: mode == 'a'                          # if mode == \"a\":  # t.py:7 in f": "mode",
    }
    assert {t: parse_guard_failure(t).subject for t in cases} == cases
    assert parse_guard_failure("0/3: mode == 'a'    # if mode == \"a\":  # t.py:7 in f").guard == "mode == 'a'"


TEXT_LOG = textwrap.dedent('''\
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles] Recompiling function step in {p}:4
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles]     triggered by the following guard failure(s):
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles]     - 0/0: lr == 0.1                    # return x * lr  # t.py:5 in step
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles]     - User stack trace:
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles]     -   File "{p}", line 5, in step
    V1202 13:38:58.832000 4932 torch/_dynamo/guards.py:5396] [0/1] [__recompiles]     -     return x * lr
    step done
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8] torch._dynamo hit config.recompile_limit (8)
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8]    function: 'forward' ({p}:9)
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8]    last reason: 1/7: self.calls == 7          # self.calls += 1  # t.py:10 in forward
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8] User stack trace:
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8]   File "{p}", line 10, in forward
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8]     self.calls += 1
    W1202 13:38:10.878000 4932 torch/_dynamo/convert_frame.py:1994] [1/8] To log all recompilation reasons, use TORCH_LOGS="recompiles".
''')


def test_recompiles_from_a_text_log_and_the_limit_warning(tmp_path):
    """TORCH_LOGS=recompiles records, and the limit warning Dynamo prints without TORCH_LOGS (its last
    reason; the limit says how many recompiles there were)."""
    p = tmp_path / "t.py"
    p.write_text(RC_SRC)
    procs = parse_text_log(TEXT_LOG.format(p=p))
    record = build_record(procs, source="torch_logs", use_static_roots=True)
    got = [(r.line, r.function, r.frame["line"], r.guard, r.target, r.site, r.count, r.limit_hit, r.limit)
           for r in record.recompiles]
    assert got == [
        (5, "step", 4, "lr == 0.1", {"kind": "argument", "name": "lr", "expr": "lr"}, "stack", 1, False, None),
        (10, "forward", 9, "self.calls == 7", {"kind": "attribute", "name": "calls", "expr": "self.calls"},
         "stack", 8, True, {"name": "recompile_limit", "value": 8}),
    ]
    assert record.breaks == [] and str(p) in record.files


def test_a_tensor_guard_points_at_the_parameter_and_resume_functions_count_with_their_function(tmp_path):
    p = tmp_path / "t.py"
    p.write_text(RC_SRC)
    proc = Process(pid=1)
    proc.strings = {0: str(p)}
    start = {"dynamo_start": {"stack": [{"line": 4, "name": "step", "filename": 0}]}}
    resume = {"dynamo_start": {"stack": [{"line": 5, "name": "torch_dynamo_resume_in_step_at_5", "filename": 0}]}}
    proc.feed_event(dict(start, frame_id=0, frame_compile_id=0), None)
    for fid, ev in ((0, start), (1, resume)):
        proc.feed_event({"artifact": {"name": "recompile_reasons"}, "frame_id": fid, "frame_compile_id": 1},
                        "0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4")
        proc.feed_event(dict(ev, frame_id=fid, frame_compile_id=1), None)
    [r] = build_record([proc], source="live").recompiles
    assert (r.path, r.line, r.site, r.function, r.count, r.resumed) == (str(p), 4, "parameter", "step", 2, 1)
    assert r.target == {"kind": "argument", "name": "x", "expr": "x"}


def test_merging_records_keeps_other_files_recompiles(tmp_path):
    from fullgraph.trace.pertest import merge_records
    from fullgraph.trace.record import Recompile, merge_into_file

    def rc(path, guard="lr == 0.1", count=1):
        return Recompile(path=str(path), line=5, function="step", frame={"path": str(path), "line": 4,
                                                                         "function": "step"},
                         guard=guard, guards=[guard], target={"kind": "argument", "name": "lr", "expr": "lr"},
                         count=count)

    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(RC_SRC)
    b.write_text(RC_SRC)
    out = tmp_path / "breaks.json"
    merge_into_file(Record(files={str(a): "1"}, recompiles=[rc(a)]), str(out))
    merged = merge_into_file(Record(files={str(b): "2"}, recompiles=[rc(b)]), str(out))
    assert [r.path for r in merged.recompiles] == [str(a), str(b)]
    both = merge_records([Record(recompiles=[rc(a)]), Record(recompiles=[rc(a, "lr == 0.2", 2)])])
    assert [(r.count, r.guards) for r in both.recompiles] == [(3, ["lr == 0.1", "lr == 0.2"])]


def test_compare_lists_recompiles_with_the_recompile_rule_at_their_line(tmp_path):
    """An FG6xx finding (a recompile hazard) is matched with a recompile, never counted against the breaks."""
    from fullgraph.model import Finding
    from fullgraph.positions import Span
    from fullgraph.trace.compare import compare, format_comparison_text
    from fullgraph.trace.record import Recompile

    p = tmp_path / "t.py"
    p.write_text(RC_SRC)

    def finding(line, code):
        return Finding(path=str(p), code=code, name="float-argument", message="a float argument recompiles",
                       severity="warning", span=Span.of(line - 1, 4, line - 1, 17))

    rc = Recompile(path=str(p), line=5, function="step", frame={"path": str(p), "line": 4, "function": "step"},
                   guard="lr == 0.1", guards=["lr == 0.1"], site="stack")
    record = Record(files={str(p): hashlib.sha1(p.read_bytes()).hexdigest()}, recompiles=[rc])
    c = compare(record, [finding(4, "FG601"), finding(10, "FG602")])
    assert [(r.line, f.code) for r, f in c.recompiles] == [(5, "FG601")]  # at the compiled function's line
    assert [f.code for f in c.recompiles_unconfirmed] == ["FG602"] and not c.unconfirmed and not c.missed
    text = format_comparison_text(c, record, str(tmp_path / "breaks.json"), str(tmp_path))
    assert "  t.py:5:1: Recompile step recompiled 1 time: guard `lr == 0.1` failed  ==  FG601 float-argument " \
           "at line 4" in text
    assert "0 of 0 runtime breaks found statically" in text
