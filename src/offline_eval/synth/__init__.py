"""Synthetic-data generators: each models the mechanism a paper describes.

Every generator takes ``rng`` (an int seed or a ``numpy.random.Generator``)
and exposes its knobs as keyword parameters with documented defaults.
Submodules: ``sponsored`` (yi) and ``search_world`` (its online world), ``wallet`` (rosset), ``classifiers``
(piovano), ``rtb`` (chapelle).
"""

from . import classifiers, rtb, search_world, sponsored, wallet

__all__ = ["classifiers", "rtb", "search_world", "sponsored", "wallet"]
