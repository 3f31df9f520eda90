"""Focal's development tools in Python: benchmarks, the hostile-input corpus, the mutation loop,
the pet stress set and the cluster on loopback (scripts/README.md lists them).

Each tool is a module run with `python3 -m focalscripts.NAME` with scripts/ on the module path;
the Makefile and scripts/common.sh put it there:

    PYTHONPATH=scripts python3 -m focalscripts.bench_serve --help

Standard library only (Python 3.11, Debian 12's python3). The shared modules: paths (the
checkout's folders and the focal binary), cli (messages, settings from the environment), ports,
web (HTTP requests, readiness, signed URLs, /metrics), processes (child processes, /proc),
servers (`focal serve` and thumbor on loopback), images (the vips command), photos (the enlarged
photos the serving benchmarks request) and wrk (wrk with the one Lua script, wrk.lua).
"""
