"""Shared fixtures."""

import numpy as np
import pytest


@pytest.fixture(params=range(5), ids=lambda s: f"seed{s}")
def rng(request):
    """A numpy Generator for each of several seeds."""
    return np.random.default_rng(request.param)
