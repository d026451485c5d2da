"""The doctests of the library (``--doctest-modules`` over ``src/offline_eval``).

A public module re-exports what its private engines define and names itself their home (``__module__``, set
by ``offline_eval._public.publish`` when the public module is imported), and doctest collects an example under
the module its object names.  Importing the public modules here, before any file is collected, makes that hold
whichever file pytest collects first: each example runs once, under the public name a reader uses.
"""

import offline_eval.adaptive  # noqa: F401
import offline_eval.logboot  # noqa: F401
import offline_eval.mergeable  # noqa: F401
import offline_eval.metrics  # noqa: F401
import offline_eval.ondask  # noqa: F401
import offline_eval.ranking.coefficients  # noqa: F401
