"""Unit tests of the pipeline's own helpers (mtsig.steps, mtsig.studies.synthetic) that the rules rely on."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.stats.conclusions import unordered_pairs
from mtsig.steps.significance import distribution_pairs, shard_pairs
from mtsig.studies.synthetic import SyntheticSpec, generate_ratings, generate_texts, planted_conclusion


@pytest.mark.parametrize("n_systems, n_shards", [(2, 1), (12, 1), (12, 5), (12, 66), (100, 10), (7, 30)])
def test_shards_partition_the_pairs_in_canonical_order(n_systems: int, n_shards: int) -> None:
    shards = [shard_pairs(n_systems, k, n_shards) for k in range(n_shards)]
    assert [p for shard in shards for p in shard] == list(itertools.combinations(range(n_systems), 2))
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1


def test_auto_distribution_pairs_closest_and_clearly_different() -> None:
    scores = np.array(
        [30.0, 20.0, 30.5, 10.0]
    )  # closest: 0 and 2 (gap 0.5); gaps 10, 0.5, 20, 10.5, 10, 20.5
    systems = ["A", "B", "C", "D"]
    pairs = distribution_pairs(scores, systems, "auto", 0.75)
    assert pairs[0] == ("C", "A")  # oriented higher score first
    gaps = sorted(abs(a - b) for a, b in itertools.combinations(scores, 2))
    x, y = pairs[1]
    chosen_gap = abs(scores[systems.index(x)] - scores[systems.index(y)])
    assert chosen_gap == min(gaps, key=lambda g: abs(g - np.quantile(gaps, 0.75)))
    assert scores[systems.index(x)] > scores[systems.index(y)]


def test_configured_distribution_pairs_must_name_known_systems() -> None:
    with pytest.raises(InputError, match="Z"):
        distribution_pairs(np.zeros(2), ["A", "B"], [["A", "Z"]], 0.75)
    assert distribution_pairs(np.zeros(2), ["A", "B"], [["B", "A"]], 0.75) == [("B", "A")]


def test_unordered_pairs_count() -> None:
    assert len(unordered_pairs(range(12))) == 66


def test_synthetic_truth_is_what_the_generator_planted() -> None:
    spec = SyntheticSpec(seed=3, systems=6, segments=200)
    reference, outputs, quality = generate_texts(spec)
    assert len(reference) == 200 and all(len(lines) == 200 for lines in outputs.values())
    # lower planted corruption -> higher true quality, on average over segments
    corruption = spec.corruption()
    for i, j in itertools.combinations(range(6), 2):
        if corruption[i] < corruption[j] - 0.1:
            assert quality[i].mean() > quality[j].mean()
    assert planted_conclusion(spec, "sys1", "sys2") == "tie"
    assert planted_conclusion(spec, "sys1", "sys3") == "sys_x"
    assert planted_conclusion(spec, "sys6", "sys3") == "sys_y"


def test_synthetic_ratings_are_tidy_with_paired_bad_references() -> None:
    spec = SyntheticSpec(seed=3)
    _, _, quality = generate_texts(spec)
    ratings = generate_ratings(spec, quality)
    assert list(ratings.columns) == [
        "annotator",
        "system",
        "segment",
        "item_type",
        "criterion",
        "raw_score",
        "hit",
    ]
    assert not ratings.duplicated().any()  # the tidy format refuses a line repeated exactly
    assert ratings["raw_score"].between(0, 100).all()
    bad = ratings[ratings["item_type"] == "bad_ref"]
    originals = ratings[ratings["item_type"] == "system"]
    keys = ["annotator", "system", "segment", "criterion"]
    assert not pd.merge(bad[keys], originals[keys]).empty
    assert len(pd.merge(bad[keys].drop_duplicates(), originals[keys].drop_duplicates())) == len(
        bad[keys].drop_duplicates()
    )
