"""Synthetic-data generators: each models the mechanism a paper describes.

Every generator takes ``rng`` (an int seed or a ``numpy.random.Generator``)
and exposes its knobs as keyword parameters with documented defaults; :func:`check_rng` turns such an
``rng`` into a Generator the way every generator does (for one's own simulations built on these).
Submodules: ``sponsored`` (yi) and ``search_world`` (its online world), ``wallet`` (rosset), ``classifiers``
(piovano), ``rtb`` (chapelle).
"""

from .._validation import check_rng
from . import classifiers, rtb, search_world, sponsored, wallet

__all__ = ["check_rng", "classifiers", "rtb", "search_world", "sponsored", "wallet"]
