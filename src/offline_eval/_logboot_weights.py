"""The resample weights of :mod:`offline_eval.logboot`: Poisson(1) counts from a generator, or hashed from
(seed, resample, cluster key) alone so that any partition of a log draws the same weights."""

from __future__ import annotations

import numpy as np

from ._validation import InputTypeError


def _poisson_thresholds() -> np.ndarray:
    """``round(2^32 F(k))`` for the Poisson(1) CDF ``F``, in exact decimal arithmetic (no libm), below 2^32."""
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    out, term, cdf, k = [], Decimal(-1).exp(), Decimal(0), 0
    while True:
        cdf += term
        t = int((cdf * 2**32).to_integral_value())
        if t >= 2**32:
            return np.array(out, dtype=np.uint32)
        out.append(t)
        k += 1
        term /= k


_POISSON_T = _poisson_thresholds()


def _poisson_table() -> np.ndarray:
    """``#{k : t_k <= u}`` for every ``u`` with the top 16 bits ``h``, where one count holds for the whole
    range ``[h 2^16, (h + 1) 2^16)``; 255 where a threshold falls inside it (at most one range per threshold)."""
    low = np.arange(1 << 16, dtype=np.uint64) << np.uint64(16)
    t = _POISSON_T.astype(np.uint64)
    k_low = np.searchsorted(t, low, side="right")
    k_high = np.searchsorted(t, low + np.uint64(0xFFFF), side="right")
    return np.where(k_low == k_high, k_low, 255).astype(np.uint8)


_POISSON_TABLE = _poisson_table()


#: The largest Poisson weight drawn: ``len(_POISSON_T)`` (12; a uniform above every threshold).
MAX_WEIGHT = len(_POISSON_T)


def _poisson_counts(u: np.ndarray, top16=None) -> np.ndarray:
    """``#{k : u >= round(2^32 F(k))}`` of 32-bit uniforms, as uint8: a table of the top 16 bits (``top16``, as
    int64, when the caller has them), and a binary search for the few ``u`` (about 13 in 65,536) whose 2^16-wide
    range holds a threshold.  Equal to counting the thresholds one by one, in two passes instead of one per
    threshold."""
    if top16 is None:
        top16 = (u >> np.uint32(16)).astype(np.intp)
    k = np.take(_POISSON_TABLE, top16)
    if k.max(initial=0) == 255:
        odd = k == 255
        k[odd] = np.searchsorted(_POISSON_T, u[odd], side="right")
    return k


def _poisson_of_uniform(u: np.ndarray) -> np.ndarray:
    """:func:`_poisson_counts` as float64."""
    return _poisson_counts(u).astype(np.float64)


def poisson_weights(gen: np.random.Generator, shape) -> np.ndarray:
    """Poisson(1) weights as float64, by inversion of one 32-bit uniform each.

    ``W = #{k : U >= round(2^32 F(k))}`` with ``U`` uniform on 0..2^32 - 1: each probability is
    Poisson(1)'s to within 2^-32, the thresholds are exact integers (the same weights on every machine),
    and it is several times faster than ``Generator.poisson``.  Drawn in C order from one stream, so
    blocks of rows drawn in turn equal one draw of all of them.

    Parameters
    ----------
    gen : numpy.random.Generator
    shape : tuple of int
    """
    return _poisson_of_uniform(gen.integers(0, 2**32, size=shape, dtype=np.uint32))


def poisson_counts(gen: np.random.Generator, shape) -> np.ndarray:
    """The weights of :func:`poisson_weights` (the same draws from ``gen``) as uint8."""
    return _poisson_counts(gen.integers(0, 2**32, size=shape, dtype=np.uint32))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix64(z: np.ndarray, *, inplace: bool = False) -> np.ndarray:
    """splitmix64's output function (Stafford's mix 13), elementwise on uint64: a bijection with full avalanche.

    ``inplace``: ``z`` is the caller's scratch array and is overwritten (one temporary instead of five)."""
    if not inplace:
        z = np.array(z, dtype=np.uint64)
    t = np.empty_like(z)
    with np.errstate(over="ignore"):
        for shift, mult in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            np.right_shift(z, np.uint64(shift), out=t)
            np.bitwise_xor(z, t, out=z)
            np.multiply(z, np.uint64(mult), out=z)
        np.right_shift(z, np.uint64(31), out=t)
        np.bitwise_xor(z, t, out=z)
    return z


def draw_seed(gen: np.random.Generator) -> int:
    """The 64-bit seed of :func:`hashed_poisson_weights`: one uint64 drawn from ``gen``."""
    return int(gen.integers(0, 2**64, dtype=np.uint64))


def cluster_keys(labels, name: str = "groups") -> np.ndarray:
    """The 64-bit key of each cluster label, as uint64: an integer is its own value (two's complement), a
    string the first 8 bytes (little-endian) of the BLAKE2b digest of its UTF-8 bytes.

    The key depends on the label alone (not on the other labels, their order or the machine), so every
    partition of a log computes the same key for the same cluster.  Two strings share a key with probability
    about ``G**2 / 2**65`` for ``G`` distinct strings; they then share their weights (and stay two clusters).

    Parameters
    ----------
    labels : array-like of shape (G,)
        Integers (or bools), or strings: not a mix, and not floats.
    name : str
        The argument named in errors.
    """
    import hashlib

    arr = np.asarray(labels)
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64).view(np.uint64) if arr.dtype.kind != "u" else arr.astype(np.uint64)
    values = arr.tolist()
    if arr.dtype.kind in "UO" and all(isinstance(v, str) for v in values):
        return np.array([int.from_bytes(hashlib.blake2b(v.encode("utf-8"), digest_size=8).digest(), "little")
                         for v in values], dtype=np.uint64)
    if arr.dtype.kind == "O" and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return np.array([v % 2**64 for v in values], dtype=np.uint64)
    raise InputTypeError(f"`{name}` must hold integers or strings for hashed Poisson weights; got dtype "
                         f"{arr.dtype} (e.g. {values[:3]!r})")


def hashed_poisson_weights(seed: int, resamples, keys, *, by_cluster: bool = False) -> np.ndarray:
    """Poisson(1) weights of the clusters ``keys`` in the resamples ``resamples``, counter-based.

    The weight of cluster key ``g`` in resample ``b`` is ``#{k : U >= round(2^32 F(k))}``, the inversion of
    :func:`poisson_weights`, with the 32-bit uniform ``U`` the top half of

    ``mix(mix(g XOR mix(seed)) XOR mix(mix(seed) + (b + 1) * 0x9E3779B97F4A7C15))``

    (``mix`` splitmix64's output function, arithmetic mod 2^64).  It depends on ``(seed, b, g)`` alone, so the
    partitions of a log need no communication: a cluster split over partitions gets one weight, the same
    whatever the partitioning or the order of the rows, on any machine (integer arithmetic only).

    Parameters
    ----------
    seed : int in [0, 2^64)
    resamples : array-like of int, shape (B,)
        Resample numbers ``b``.
    keys : uint64 array of shape (G,)
        Cluster keys (:func:`cluster_keys`).
    by_cluster : bool, default False
        Return the transpose, shape (G, B), in C order (the same weights).

    Returns
    -------
    ndarray of float64, shape (B, G) (or (G, B))

    Examples
    --------
    >>> w = hashed_poisson_weights(7, np.arange(3), np.array([10, 11], dtype=np.uint64))
    >>> w.shape, bool((hashed_poisson_weights(7, [1], np.array([11], dtype=np.uint64)) == w[1:2, 1:]).all())
    ((3, 2), True)
    """
    W = hashed_counts(seed, resamples, keys)
    return (W if by_cluster else W.T).astype(np.float64)


#: Cells of one chunk of :func:`hashed_counts` (a few hundred KiB of scratch: it stays in cache).
_HASH_CHUNK = 1 << 14


def hashed_counts(seed: int, resamples, keys) -> np.ndarray:
    """The weights of :func:`hashed_poisson_weights` by cluster, shape (G, B) in C order, as int16.

    The same integers; computed in chunks of :data:`_HASH_CHUNK` cells with preallocated scratch (each pass
    over a chunk stays in cache), about 7 ns per weight on one core.
    """
    s = _mix64(np.array([seed], dtype=np.uint64))
    kk = _mix64(np.asarray(keys, dtype=np.uint64).reshape(-1) ^ s)
    with np.errstate(over="ignore"):
        bb = _mix64(s + (np.asarray(resamples, dtype=np.uint64).reshape(-1) + np.uint64(1)) * _GOLDEN)
    G, B = len(kk), len(bb)
    out = np.empty((G, B), dtype=np.int16)
    if G == 0 or B == 0:
        return out
    rows = max(1, _HASH_CHUNK // B)
    z = np.empty((min(rows, G), B), np.uint64)
    t = np.empty_like(z)
    m1, m2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    s27, s30, s31, s32, s48 = (np.uint64(k) for k in (27, 30, 31, 32, 48))
    with np.errstate(over="ignore"):
        for c0 in range(0, G, rows):
            c1 = min(G, c0 + rows)
            zz, tt = z[:c1 - c0], t[:c1 - c0]
            np.bitwise_xor(kk[c0:c1, None], bb[None, :], out=zz)
            # _mix64 in place, step by step
            np.right_shift(zz, s30, out=tt)
            zz ^= tt
            zz *= m1
            np.right_shift(zz, s27, out=tt)
            zz ^= tt
            zz *= m2
            np.right_shift(zz, s31, out=tt)
            zz ^= tt
            np.right_shift(zz, s48, out=tt)
            k = np.take(_POISSON_TABLE, tt.view(np.int64))
            if k.max() == 255:
                odd = k == 255
                k[odd] = np.searchsorted(_POISSON_T, (zz[odd] >> s32).astype(np.uint32), side="right")
            out[c0:c1] = k
    return out
