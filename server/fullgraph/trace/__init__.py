"""Runtime capture: record the graph breaks Dynamo meets while a real program runs (GitHub issue 6), and
the recompiles it performs beside them (issue 28).

    fullgraph trace [--out FILE] [--format text|json|sarif|github] -- python train.py --steps 3
    fullgraph trace --from-log stderr.txt | --from-log /tmp/torch_trace_dir
    fullgraph trace --compare [--record FILE] [PATHS]

Modules:

* `_hook`      runs inside the traced program (standard library only): a handler on the
               ``torch.__trace`` logger (the TORCH_TRACE / tlparse channel) that writes the graph-break,
               compile-failure, recompile-reason and compile-start events to one part file per process;
* `run`        the bootstrap (sitecustomize on PYTHONPATH), the child process, exit codes;
* `parse`      Dynamo's message and traceback layouts (gb_type, explanation, hints, GB code, ^^^ columns);
* `collect`    events / log records -> hits -> merged breaks (roots, counts, files) and recompiles;
* `logs`       TORCH_LOGS text logs and TORCH_TRACE directories;
* `record`     the record file format, `load_record`, `runtime_findings` (the language server's API);
* `compare`    runtime record vs static findings;
* `cli`        the ``trace`` subcommand;
* `pertest`    the same capture in-process, one record per test (the pytest plugin);
* `verdict`    which of a test's breaks fail it (project / library / allowed / baseline) and the text.

API for editors::

    from fullgraph.trace.record import load_record, runtime_findings, default_record_path
    record = load_record(default_record_path(workspace_root))      # None if missing or bad; never raises
    findings = runtime_findings(record, path, buffer_text)         # [] if the file changed since capture
    record.recompiles_at(path, line)                               # recompiles observed at a 1-based line
    recompile_findings(record, path, buffer_text)                  # them as Findings (code Recompile / GB0039)
"""
