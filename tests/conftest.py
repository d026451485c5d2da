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

