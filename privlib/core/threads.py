"""One process-wide, counted single-threaded-BLAS hold for every parallel computation of privlib,
and the one count of the cores this process may use (`available_cores`).

Why: several computations run their own worker threads, each doing small matrix products, which
are faster with a single-threaded BLAS (a 2-thread OpenBLAS ran the search's products about 5x
slower on a busy machine). But OpenBLAS's thread count is process-wide, and the app serves many
sessions from threads of one process. Per-call ``threadpoolctl.threadpool_limits`` blocks from
concurrent calls interleave their save/restore: one call restores 2 threads while another is
still computing, and the last to leave restores the 1 it saw, leaving the whole process
single-threaded for good. Here the limit is set when the first holder enters and restored when
the last one leaves, under one lock, whichever topic the holders belong to.

threadpoolctl >= 3.8 lets only the thread that made the last change change it again, so the
control is released after each change (the first and last holders may be on different threads).
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system tells it (a container's
    or ``taskset``'s share, not the machine's count), else ``os.cpu_count()``; at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - no affinity outside Linux and a few Unixes
        return max(1, os.cpu_count() or 1)


class BlasHold:
    """A counted hold of a single-threaded BLAS (see the module's docstring); re-entrant, thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._controller = None
        self._limiter = None
        self.holders = 0

    def reset_after_fork(self) -> None:
        """A forked child has none of the parent's threads (so no holder): start again from nothing."""
        self.__init__()

    @staticmethod
    def release_control() -> None:
        """Let any thread change the BLAS limits next (threadpoolctl >= 3.8 remembers the last one)."""
        try:
            from threadpoolctl import OpenBLASController
        except ImportError:  # pragma: no cover - threadpoolctl < 3
            return
        clear = getattr(OpenBLASController, "clear_controlling_thread", None)  # threadpoolctl >= 3.8
        if clear is not None:
            clear(force=True)

    @contextmanager
    def single_threaded(self):
        """BLAS limited to one thread from the first concurrent holder's entry to the last one's exit."""
        with self._lock:
            if self.holders == 0:
                from threadpoolctl import ThreadpoolController

                if self._controller is None:
                    self._controller = ThreadpoolController()
                self.release_control()
                self._limiter = self._controller.limit(limits=1, user_api="blas")
                self.release_control()
            self.holders += 1
        try:
            yield
        finally:
            with self._lock:
                self.holders -= 1
                if self.holders == 0:
                    self.release_control()
                    self._limiter.restore_original_limits()
                    self.release_control()
                    self._limiter = None


#: The hold of this process: every parallel computation of privlib goes through it.
BLAS_HOLD = BlasHold()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=BLAS_HOLD.reset_after_fork)


def single_threaded_blas():
    """``with single_threaded_blas(): …`` — BLAS single-threaded while any holder of the process is
    inside such a block (`BLAS_HOLD`); the original thread counts come back when the last leaves."""
    return BLAS_HOLD.single_threaded()
