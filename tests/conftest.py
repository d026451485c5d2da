"""Shared fixtures."""

import warnings

import numpy as np
import pytest


@pytest.fixture(params=range(5), ids=lambda s: f"seed{s}")
def rng(request):
    """A numpy Generator for each of several seeds."""
    return np.random.default_rng(request.param)


def _project_warnings(fn, *args, **kwargs):
    """Call ``fn``; return its result and the messages of its warnings, in order, every one the project's own
    (a numpy warning, e.g. of an overflow, fails)."""
    from offline_eval import OfflineEvalWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    assert all(issubclass(w.category, OfflineEvalWarning) for w in caught), [str(w.message) for w in caught]
    return out, [str(w.message) for w in caught]


@pytest.fixture
def project_warnings():
    """``project_warnings(fn, *args, **kwargs) -> (result, messages)``: ``fn``'s warnings, all the project's."""
    return _project_warnings


# Property tests draw the same examples on every run (a reproducible suite; CI cannot flake on a
# rare draw), without per-example deadlines (the 2-core CI machine is shared).
from hypothesis import settings  # noqa: E402

settings.register_profile("offline-eval", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("offline-eval")

