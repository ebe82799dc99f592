"""Sub-sampling the items (segments) of a test set: uniformly, or stratified over documents.

mt-metrics-eval's ``data.GetCorrelations(sample_size=..., sample_method=..., sample_seed=...)`` (``stats.Sample``)
meta-evaluates metrics on a sample of the segments, to study how a task's results depend on the test set's size:

* ``uniform``: ``size`` distinct items drawn without replacement (``rng.choice(total, size, replace=False)``, in
  the order drawn);
* ``stratify``: the items come in consecutive bins (documents) of the given sizes; each bin gets
  ``floor(size · n_bin / total)`` items, and the ``size - Σ floor`` items left go one each to the bins with the
  largest remainders (the largest remainder method; ties broken by a random order of the bins), then each bin's
  items are drawn uniformly without replacement, bin after bin (:func:`stratified_sizes`).

A size of 0 or above the total takes every item (in a random order). With ``rng = numpy.random.default_rng(seed)``
the sample is mt-metrics-eval's ``Sample(total, size, method, bin_sizes, seed=seed)`` exactly, except that its
stratified sample breaks remainder ties with numpy's global generator (``np.random.permutation``), which its seed
does not fix: mtsig draws that order from a child of ``rng`` (``rng.spawn``), so the items' draws are still
``rng``'s, and the samples are equal whenever no remainders tie (docs/conventions.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError

#: mt-metrics-eval's ``stats.Sample`` methods.
SAMPLE_METHODS = ("uniform", "stratify")


def stratified_sizes(bin_sizes: Sequence[int], size: int, order: Sequence[int]) -> np.ndarray:
    """How many items each bin gets (module docstring): the floors of ``size · n_bin / total``, plus one for the
    ``size - Σ floors`` bins with the largest remainders; ``order`` (a permutation of the bins) breaks ties, as
    mt-metrics-eval's ``_SubsampleSizes`` does (``np.argpartition`` of the bins in that order)."""
    bins = np.asarray(bin_sizes, dtype=np.int64)
    order = np.asarray(order, dtype=np.int64)
    total = int(bins.sum())
    if sorted(order.tolist()) != list(range(bins.size)):
        raise InputError("the tie-breaking order must be a permutation of the bins")
    proportions = bins[order] / total
    ideal = proportions * size
    sizes = ideal.astype(np.int64)
    missing = size - int(sizes.sum())
    # the bins with the largest remainders: the smallest (most negative) floor - ideal
    sizes[np.argpartition(sizes - ideal, missing)[:missing]] += 1
    result = np.empty_like(sizes)
    result[order] = sizes
    return result


def item_sample(
    total: int,
    size: int,
    method: str = "uniform",
    bin_sizes: Sequence[int] | None = None,
    *,
    rng: np.random.Generator,
) -> np.ndarray:
    """The indices of a sample of ``size`` of ``total`` items (module docstring), in the order drawn.

    Raises:
        InputError: an unknown method, a stratified sample without bins or with bins that do not add up to
            ``total``, a negative size.
    """
    if method not in SAMPLE_METHODS:
        raise InputError(f"unknown sampling method {method!r}; known: {', '.join(SAMPLE_METHODS)}")
    if size < 0 or total < 1:
        raise InputError(f"cannot draw {size} of {total} items")
    if size == 0 or size > total:
        size = total
    if method == "uniform":
        return rng.choice(total, size, replace=False)
    if bin_sizes is None or any(n < 0 for n in bin_sizes) or sum(bin_sizes) != total:
        raise InputError(f"a stratified sample needs bin sizes that add up to the {total} items")
    bins = np.asarray(bin_sizes, dtype=np.int64)
    # the tie order from a child generator: the items' draws stay those of ``rng``, as mt-metrics-eval's
    per_bin = stratified_sizes(bins, size, rng.spawn(1)[0].permutation(bins.size))
    starts = np.concatenate([[0], np.cumsum(bins)[:-1]])
    return np.concatenate(
        [rng.choice(n, k, replace=False) + start for n, k, start in zip(bins, per_bin, starts, strict=True)]
    ).astype(np.int64)
