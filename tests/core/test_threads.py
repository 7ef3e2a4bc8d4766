"""The process-wide single-threaded-BLAS hold: overlapping holders from different threads (sessions of
the app, topics' sweeps) leave the process's BLAS thread count as it was; per-call
``threadpool_limits`` blocks, the former code of three topics, do not."""
import threading

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from privlib.core.threads import BLAS_HOLD, BlasHold, single_threaded_blas


def blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]


@pytest.fixture
def two_blas_threads():
    """BLAS at 2 threads for the test (the result is only visible with more than one), restored after."""
    if not blas_threads():
        pytest.fail("no BLAS library found by threadpoolctl: numpy's BLAS should be visible")
    BlasHold.release_control()
    with threadpool_limits(limits=2, user_api="blas"):
        BlasHold.release_control()
        yield blas_threads()
        BlasHold.release_control()
    BlasHold.release_control()


def overlap(hold):
    """A enters, B enters, A leaves, B checks BLAS, B leaves — from two threads, in that order."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with hold():
            a_in.set()
            b_in.wait(10)
        BlasHold.release_control()
        a_out.set()

    def second():
        a_in.wait(10)
        with hold():
            b_in.set()
            a_out.wait(10)
            seen["inside B after A left"] = blas_threads()
        BlasHold.release_control()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    seen["after both"] = blas_threads()
    return seen


def test_overlapping_holders_keep_blas_single_threaded_then_restore_it(two_blas_threads):
    seen = overlap(single_threaded_blas)
    assert set(seen["inside B after A left"]) == {1}  # B still computes single-threaded
    assert seen["after both"] == two_blas_threads  # and the process gets its threads back
    assert BLAS_HOLD.holders == 0


def test_per_call_limits_from_overlapping_threads_leave_the_wrong_count(two_blas_threads):
    # the known-wrong design this hold replaced: each block saves and restores on its own
    def per_call():
        BlasHold.release_control()
        return threadpool_limits(limits=1, user_api="blas")

    seen = overlap(per_call)
    assert set(seen["inside B after A left"]) != {1} or seen["after both"] != two_blas_threads


def test_the_hold_is_reentrant_and_counts(two_blas_threads):
    with single_threaded_blas():
        with single_threaded_blas():
            assert BLAS_HOLD.holders == 2 and set(blas_threads()) == {1}
        assert BLAS_HOLD.holders == 1 and set(blas_threads()) == {1}
    assert BLAS_HOLD.holders == 0 and blas_threads() == two_blas_threads
