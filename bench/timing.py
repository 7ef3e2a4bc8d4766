"""Shared timing helper for the benchmark scripts."""
import statistics
import time


def timed(fn, repeats):
    """(median seconds, all times, last result) of ``repeats`` calls of ``fn``."""
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, result
