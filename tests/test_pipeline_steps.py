"""Unit tests of the pipeline's own helpers (mtsig.steps, mtsig.studies.synthetic) that the rules rely on."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.stats.conclusions import unordered_pairs
from mtsig.studies.significance import distribution_pairs, shard_pairs
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


def test_a_list_of_references_is_scored_as_sacrebleu_with_several_reference_files(
    data_root, tmp_path
) -> None:
    """An experiment whose ``reference:`` lists two files: prepare_texts keeps both (reference.txt,
    reference.2.txt) and metric_stats scores BLEU and chrF against both, equal to sacrebleu's corpus scores with
    two reference streams (WMT12 es-en, first 300 segments; onlineB stands in for a second reference)."""
    import sacrebleu

    from mtsig.io.text import read_lines, unescape_html
    from mtsig.pipeline.config import reference_paths
    from mtsig.settings import TextSources
    from mtsig.steps.common import load_scored_stats
    from mtsig.steps.data import prepare_texts
    from mtsig.steps.metrics import metric_stats

    base = data_root / "wmt12" / "system-outputs" / "es-en" / "newstest2012.es-en."
    files = {"ref": data_root / "wmt12" / "plain" / "newstest2012-ref.en"}
    files |= {name: Path(f"{base}{name}") for name in ("onlineB", "UPC", "QCRI--primary")}
    lines = {}
    for name, source in files.items():
        lines[name] = [unescape_html(line) for line in read_lines(source)[:300]]
        (tmp_path / name).write_text("\n".join(lines[name]) + "\n", encoding="utf-8")
    sources = TextSources(
        reference=(str(tmp_path / "ref"), str(tmp_path / "onlineB")),
        outputs=str(tmp_path / "{system}"),
        systems=("UPC", "QCRI--primary"),
    )
    assert reference_paths(sources, tmp_path) == [tmp_path / "ref", tmp_path / "onlineB"]
    texts = tmp_path / "texts"
    prepare_texts(sources, tmp_path, texts=texts, documents=tmp_path / "documents.tsv")
    assert read_lines(texts / "reference.2.txt") == lines["onlineB"]
    metric_stats(metrics=["bleu", "chrf"], texts=texts, stats=tmp_path / "stats")  # the rule's one job
    for metric, corpus in (("bleu", sacrebleu.corpus_bleu), ("chrf", sacrebleu.corpus_chrf)):
        stats, systems, details, scorer = load_scored_stats(tmp_path / "stats" / f"{metric}.npz")
        assert "|nrefs:2|" in details
        scores = scorer.score(stats.sum(axis=1))
        for system, score in zip(systems, scores, strict=True):
            expected = corpus(lines[system], [lines["ref"], lines["onlineB"]]).score
            assert score == pytest.approx(expected, abs=1e-9), (metric, system)


def test_training_runs_step_scores_each_run_as_sacrebleu_and_runs_the_library_comparison(
    data_root, tmp_path
) -> None:
    """An experiment's ``training_runs`` (WMT12 es-en outputs standing in for two runs of each of two systems,
    first 300 segments): each system's score is the mean of its runs' sacrebleu corpus BLEU, and the pairs are
    :func:`compare_training_runs`' with the step's seed."""
    import sacrebleu

    from mtsig.io.text import read_lines, unescape_html
    from mtsig.metrics import get_metric
    from mtsig.stats.seeding import derive_seed
    from mtsig.stats.training_runs import compare_training_runs
    from mtsig.steps.significance import training_runs

    base = data_root / "wmt12" / "system-outputs" / "es-en" / "newstest2012.es-en."
    names = ("onlineC", "onlineF", "uk-dan-moses", "onlineE")
    lines = {
        "ref": [unescape_html(x) for x in read_lines(data_root / "wmt12" / "plain" / "newstest2012-ref.en")]
    }
    lines |= {name: [unescape_html(x) for x in read_lines(Path(f"{base}{name}"))] for name in names}
    for name, text in lines.items():
        (tmp_path / name).write_text("\n".join(text[:300]) + "\n", encoding="utf-8")
    runs_of = {"A": ["onlineC", "onlineF"], "B": ["uk-dan-moses", "onlineE"]}
    training_runs(
        reference="ref",
        run_files=runs_of,
        unescape_html=False,
        meteor_language="en",
        data_root=tmp_path,
        experiment="toy",
        metrics=["bleu"],
        samples={"paired_bootstrap": 200},
        seed=5,
        pairs=tmp_path / "pairs.tsv",
        systems=tmp_path / "systems.tsv",
    )
    systems = pd.read_csv(tmp_path / "systems.tsv", sep="\t").set_index("system")
    for system, runs in runs_of.items():
        expected = np.mean([sacrebleu.corpus_bleu(lines[r][:300], [lines["ref"][:300]]).score for r in runs])
        assert systems.loc[system, "score"] == pytest.approx(expected, abs=1e-9)
    bleu = get_metric("bleu")
    refs = lines["ref"][:300]
    stats = {s: bleu.stats_many({r: lines[r][:300] for r in runs}, refs) for s, runs in runs_of.items()}
    direct = compare_training_runs(
        stats, bleu.score, n_samples=200, seed=derive_seed(5, "toy", "bleu", "training_runs"), metric="bleu"
    )
    pairs = pd.read_csv(tmp_path / "pairs.tsv", sep="\t")
    pd.testing.assert_frame_equal(pairs, direct.pairs, check_exact=False, rtol=1e-12, check_dtype=False)


def test_an_intermediate_table_s_settings_are_shared_by_the_frames_made_from_it(tmp_path: Path) -> None:
    """read_intermediate_tsv puts the manifest's settings in ``attrs``; pandas deep-copies ``attrs`` into every
    derived frame, so the settings are one shared object (copying every test's signature per selection cost a
    tenth of an evaluate job), equal to what was written."""
    from mtsig.steps.files import read_intermediate_tsv, write_tsv

    settings = {"signatures": {"paired_bootstrap": "nrefs:1|bs:1000"}, "seed": 7}
    path = tmp_path / "tests.tsv"
    write_tsv(
        pd.DataFrame({"test": ["a", "b"], "p_value": [0.5, 0.25]}),
        path,
        made_by="merge_tests",
        settings=settings,
    )
    frame = read_intermediate_tsv(path, "merge_tests")
    derived = frame[frame["test"] == "b"].merge(frame, on="test")
    assert frame.attrs["settings"] == settings
    assert derived.attrs["settings"] is frame.attrs["settings"]
