"""Shared helpers for the benchmark scripts: timing and a description of the machine."""
import os
import platform
import statistics
import time

import numpy as np


def timed(fn, repeats):
    """(median seconds, all times, last result) of ``repeats`` calls of ``fn``."""
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, result


def machine_info() -> str:
    """CPU model and cores, Python, numpy and BLAS versions, and the load average: what a benchmark's
    numbers depend on (machines differ; compare ratios measured in the same run)."""
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i.get('version')} ({i['num_threads']} threads)"
                         for i in threadpool_info() if i.get("user_api") == "blas")
    except ImportError:  # pragma: no cover
        blas = "unknown"
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return (f"{platform.platform()}; CPU: {model}, {os.cpu_count()} cores; Python {platform.python_version()}, "
            f"numpy {np.__version__}; BLAS: {blas}; load average (1, 5, 15 min): {load}")
