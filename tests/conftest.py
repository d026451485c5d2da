"""Shared fixtures."""

import numpy as np
import pytest


@pytest.fixture(params=range(5), ids=lambda s: f"seed{s}")
def rng(request):
    """A numpy Generator for each of several seeds."""
    return np.random.default_rng(request.param)


# Property tests draw the same examples on every run (a reproducible suite; CI cannot flake on a
# rare draw), without per-example deadlines (the 2-core CI machine is shared).
from hypothesis import settings  # noqa: E402

settings.register_profile("offline-eval", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("offline-eval")


# The library's doctests (--doctest-modules over src/offline_eval, the suite's other test path) are collected
# under the module each object names as its home, and a public module names itself the home of what its private
# engines define when it is imported (offline_eval._public.publish).  Importing the public modules here, before
# any file is collected, runs each example once, under its public name, whatever order the files come in.
import offline_eval.adaptive  # noqa: E402, F401
import offline_eval.logboot  # noqa: E402, F401
import offline_eval.mergeable  # noqa: E402, F401
import offline_eval.metrics  # noqa: E402, F401
import offline_eval.ondask  # noqa: E402, F401
import offline_eval.ranking.coefficients  # noqa: E402, F401
