"""n-best measures (Bremerman et al. 2020) against hand calculations, scipy, sacrebleu and simulations."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from scipy import stats

from mtsig.errors import InputError
from mtsig.io.staple import GoldPrompt, NBestList, read_staple_gold, read_system_file
from mtsig.report.nbest_plots import plot_ablation, plot_all
from mtsig.settings import NBestParameters, build
from mtsig.stats.ranking_measures.nbest import (
    average_precision,
    gold_weights,
    mean_average_precision,
    normalize_staple,
    pearson_r,
    pearson_rank,
    spearman_rho,
    weighted_f1,
    weighted_macro_f1,
)
from mtsig.studies.nbest import (
    ALL,
    ablate_gold,
    ablation_study,
    bleu_grid,
    preference_correlation,
    pseudo_corpus,
    run_nbest_experiment,
    system_preference_correlation,
)
from mtsig.studies.nbest_simulation import (
    SimulatedSystem,
    gold_vocabulary,
    simulate_system,
)

# ------------------------------------------------------------------------------------------------ AP / MAP


def test_average_precision_by_hand() -> None:
    # Valid {a, b, c, d}, N = 4; valid items at ranks 1, 3, 5 with T = 1, 2, 3:
    # AP = (1/1 + 2/3 + 3/5) / 4 = (15 + 10 + 9) / 15 / 4 = 34/60.
    assert average_precision(["a", "x", "b", "y", "c"], {"a", "b", "c", "d"}) == pytest.approx(34 / 60)
    # All valid items first: AP = 1.
    assert average_precision(["b", "a", "z"], {"a", "b"}) == pytest.approx(1.0)
    # A repeated valid item counts once: ranks 1 and 3 are new valid items -> (1/1 + 2/3) / 2 = 5/6.
    assert average_precision(["a", "a", "b"], {"a", "b"}) == pytest.approx(5 / 6)
    assert average_precision([], {"a"}) == 0.0
    with pytest.raises(ValueError, match="at least one valid"):
        average_precision(["a"], set())


def test_mean_average_precision_by_hand() -> None:
    valid = {"p1": {"a", "b", "c", "d"}, "p2": {"a"}, "p3": {"q"}}
    lists = {"p1": ["a", "x", "b", "y", "c"], "p2": ["z", "a"], "other": ["q"]}
    # p1: 34/60; p2: (1/2)/1 = 1/2; p3 not translated: 0. MAP = (34/60 + 30/60 + 0) / 3 = 64/180.
    assert mean_average_precision(lists, valid) == pytest.approx(64 / 180)


# ------------------------------------------------------------------------------------------------ F1


def test_normalisation_and_collisions_follow_the_official_reader() -> None:
    assert normalize_staple("  Olá, Mundo!  ") == "olá mundo"
    prompt = GoldPrompt("p", "hi", ("olá!", "oi", "Olá"), (0.5, 0.3, 0.2))
    # "olá!" and "Olá" normalise alike; the official dict overwrite keeps the later line's weight.
    assert gold_weights(prompt) == {"olá": 0.2, "oi": 0.3}


def test_weighted_f1_by_hand() -> None:
    weights = {"a": 0.5, "b": 0.3, "c": 0.2}
    # Prediction {a, c, z}: precision = 2/3; weighted recall = (0.5 + 0.2) / 1 = 0.7;
    # F1 = 2 * (2/3) * 0.7 / (2/3 + 0.7) = (28/30) / (41/30) = 28/41.
    assert weighted_f1(["a", "c", "z"], weights) == pytest.approx(28 / 41)
    assert weighted_f1(["a", "a", "c", "z"], weights) == pytest.approx(28 / 41)  # a set: repeats ignored
    assert weighted_f1([], weights) == 0.0
    assert weighted_f1(["z"], weights) == 0.0
    lists = {"p1": ["a", "z", "c"], "p2": ["q"]}
    gold = {"p1": weights, "p2": {"q": 1.0}, "p3": {"r": 1.0}}
    # depth 2 -> {a, z}: precision 1/2, weighted recall 0.5, F1 = 0.5; p2: 1; p3 untranslated: 0.
    assert weighted_macro_f1(lists, gold, depth=2) == pytest.approx((0.5 + 1 + 0) / 3)
    # whole lists: p1 = 28/41.
    assert weighted_macro_f1(lists, gold, depth=None) == pytest.approx((28 / 41 + 1 + 0) / 3)


# ------------------------------------------------------------------------------------- correlations


def test_pearson_and_spearman_match_scipy() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    ties = np.round(y, 0)  # heavy ties for the rank version
    assert pearson_r(x, y) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert spearman_rho(x, ties) == pytest.approx(stats.spearmanr(x, ties)[0], abs=1e-12)
    assert math.isnan(pearson_r([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert math.isnan(pearson_r([1.0], [2.0]))


def test_pearson_rank_by_hand() -> None:
    # Items ordered by the reference; item i is correlated, in Pearson's pairwise form, with the items above it.
    # Top pair swapped: reference (3, 2, 1), other (2, 3, 1).
    #   item 2: (2-3)(3-2) / (1 * 1) = -1.
    #   item 3: gaps to items 1, 2: x (-2, -1), y (-1, -2): (2 + 2) / sqrt(5 * 5) = 4/5.   PR = (-1 + 4/5) / 2.
    assert pearson_rank([3, 2, 1], [2, 3, 1]) == pytest.approx(-0.1)
    # Bottom pair swapped: reference (3, 2, 1), other (3, 1, 2).
    #   item 2: (2-3)(1-3) / (1 * 2) = 1.
    #   item 3: x gaps (-2, -1), y gaps (-1, 1): (2 - 1) / sqrt(5 * 2).                  PR = (1 + 1/sqrt(10)) / 2.
    # Head-weighted: the top swap costs more, while Spearman's rho is 1/2 for both swaps.
    assert pearson_rank([3, 2, 1], [3, 1, 2]) == pytest.approx((1 + 1 / math.sqrt(10)) / 2)
    assert spearman_rho([3, 2, 1], [2, 3, 1]) == spearman_rho([3, 2, 1], [3, 1, 2]) == pytest.approx(0.5)
    # Tied top reference scores (2, 2, 1) against (1, 2, 3): item 2's reference gap is 0, its term undefined and
    # left out. Item 3: x gaps (-1, -1), y gaps (2, 1): (-2 - 1) / sqrt(2 * 5).
    assert pearson_rank([2, 2, 1], [1, 2, 3]) == pytest.approx(-3 / math.sqrt(10))
    # Positive linear transforms give 1, negative ones -1; input order does not matter.
    assert pearson_rank([0.1, 0.5, 0.3, 0.9], [1.2, 2.0, 1.6, 2.8]) == pytest.approx(1.0)
    assert pearson_rank([0.1, 0.5, 0.3, 0.9], [-1.2, -2.0, -1.6, -2.8]) == pytest.approx(-1.0)
    assert math.isnan(pearson_rank([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        pearson_rank([1.0, 2.0], [1.0, 2.0, 3.0])


def test_pearson_rank_equals_the_formula_written_as_loops() -> None:
    # Oracle: the definition transcribed literally (double loop over items and the items above them).
    rng = np.random.default_rng(5)
    for n in (2, 5, 20):
        x = rng.normal(size=n)
        y = x + rng.normal(scale=0.7, size=n)
        ordered = sorted(range(n), key=lambda k: -x[k])
        terms = []
        for i in range(1, n):
            below = ordered[i]
            cross = sum((x[below] - x[a]) * (y[below] - y[a]) for a in ordered[:i])
            x_ss = sum((x[below] - x[a]) ** 2 for a in ordered[:i])
            y_ss = sum((y[below] - y[a]) ** 2 for a in ordered[:i])
            terms.append(cross / math.sqrt(x_ss * y_ss))
        assert pearson_rank(x, y) == pytest.approx(sum(terms) / (n - 1), abs=1e-12)
    # Two items: the sign of their agreement, tau_AP's first term.
    assert pearson_rank([0.3, 0.9], [5.0, 1.0]) == -1.0


def test_pearson_rank_is_gap_sensitive() -> None:
    # The same rank swap (2nd and 3rd) costs more when the swapped scores are far apart.
    reference = [10.0, 9.0, 8.0, 1.0]
    near_swap = [10.0, 8.0, 9.0, 1.0]
    far_reference = [10.0, 9.0, 2.0, 1.0]
    far_swap = [10.0, 2.0, 9.0, 1.0]
    assert spearman_rho(reference, near_swap) == spearman_rho(far_reference, far_swap)
    assert pearson_rank(far_reference, far_swap) < pearson_rank(reference, near_swap)


def test_preference_correlation_matches_scipy_on_gold_translations_only() -> None:
    weights = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.05, "e": 0.05}
    nbest = NBestList(("A!", "x", "c", "b", "a", "e", "y"), (-0.1, -0.5, -0.7, -1.0, -1.2, -2.0, -3.0))
    # Gold hypotheses in list order: a (-0.1), c (-0.7), b (-1.0), e (-2.0); "a" again at rank 5 is ignored.
    scores, gold = [-0.1, -0.7, -1.0, -2.0], [0.4, 0.2, 0.3, 0.05]
    rho, r, matched = preference_correlation(nbest, weights)
    assert matched == 4
    assert rho == pytest.approx(stats.spearmanr(scores, gold)[0])
    assert r == pytest.approx(stats.pearsonr(scores, np.log(gold))[0])
    assert math.isnan(preference_correlation(NBestList(("a", "b")), weights)[0])  # unscored
    assert math.isnan(preference_correlation(NBestList(("a", "b"), (0.0, -1.0)), weights)[0])  # 2 < 3 matched
    system = {"p1": nbest, "p2": NBestList(("a", "b", "c"), (0.0, -1.0, -2.0))}
    mean_rho, mean_r, prompts = system_preference_correlation(system, {"p1": weights, "p2": weights})
    p2_rho = stats.spearmanr([0.0, -1.0, -2.0], [0.4, 0.3, 0.2])[0]
    assert prompts == 2 and mean_rho == pytest.approx((rho + p2_rho) / 2)


# ------------------------------------------------------------------------------------------------- ablation


def _prompt(prompt_id: str, weights: list[float]) -> GoldPrompt:
    return GoldPrompt(
        prompt_id, "src", tuple(f"{prompt_id} t{i}" for i in range(len(weights))), tuple(weights)
    )


def test_ablation_keeps_the_most_frequent_with_file_order_ties() -> None:
    gold = {"p": _prompt("p", [0.4, 0.3, 0.1, 0.1, 0.1]), "q": _prompt("q", [0.1] * 10)}
    # p: ceil(0.5 * 5) = 3 kept: t0, t1 and t2 (t2, t3, t4 tie; file order decides). q: ceil(0.3 * 10) = 3.
    half = ablate_gold(gold, 0.5)
    assert half["p"] == {"p t0", "p t1", "p t2"}
    assert ablate_gold(gold, 0.3)["q"] == {"q t0", "q t1", "q t2"}
    assert ablate_gold(gold, 0.1)["p"] == {"p t0"}  # ceil(0.5) = 1, and never fewer than one
    assert ablate_gold(gold, 1.0)["q"] == {f"q t{i}" for i in range(10)}
    with pytest.raises(ValueError):
        ablate_gold(gold, 0.0)


def test_ablation_study_correlates_with_full_gold_ranking() -> None:
    gold = {"p": _prompt("p", [0.4, 0.3, 0.2, 0.1]), "q": _prompt("q", [0.5, 0.3, 0.2])}
    lists = {
        "good": {"p": ["p t0", "p t1", "p t2", "p t3"], "q": ["q t0", "q t1", "q t2"]},
        "rare": {"p": ["p t3", "p t2", "x"], "q": ["q t2", "x", "q t0"]},
        "bad": {"p": ["x", "p t0"], "q": ["y", "z", "q t1"]},
    }
    table, maps = ablation_study(lists, gold, [0.25, 1.0])
    # Full gold, by hand: good = 1; rare: p (1 + 1) / 4 = 1/2, q (1 + 2/3) / 3 = 5/9; bad: p (1/2) / 4 = 1/8,
    # q (1/3) / 3 = 1/9.  Kept 0.25: p {t0}, q {t0}: good 1; rare: p 0, q (1/3) / 1; bad: p 1/2, q 0.
    full = {"good": 1.0, "rare": (1 / 2 + 5 / 9) / 2, "bad": (1 / 8 + 1 / 9) / 2}
    ablated = {"good": 1.0, "rare": (0 + 1 / 3) / 2, "bad": (1 / 2 + 0) / 2}
    got = maps.set_index(["system", "kept_fraction"])["map"]
    for system in lists:
        assert got[(system, 1.0)] == pytest.approx(full[system])
        assert got[(system, 0.25)] == pytest.approx(ablated[system])
    row = table.set_index("kept_fraction").loc[0.25]
    # rare and bad swap places: full ranking good > rare > bad, ablated good > bad > rare.
    assert row["spearman"] == pytest.approx(stats.spearmanr(list(full.values()), list(ablated.values()))[0])
    assert row["spearman"] == pytest.approx(0.5)
    assert table.set_index("kept_fraction").loc[1.0, "pearson_rank"] == pytest.approx(1.0)


# -------------------------------------------------------------------------------------------------- BLEU


def _bleu_gold() -> dict[str, GoldPrompt]:
    return {
        "p1": GoldPrompt(
            "p1", "s", ("o gato está aqui", "o gato", "aqui está o gato preto"), (0.2, 0.5, 0.3)
        ),
        "p2": GoldPrompt("p2", "s", ("eu gosto de café .",), (1.0,)),
        "p3": GoldPrompt("p3", "s", ("bom dia", "olá bom dia , amigo", "bom dia amigo"), (0.6, 0.2, 0.2)),
    }


def _bleu_systems() -> dict[str, dict[str, NBestList]]:
    return {
        "s1": {
            "p1": NBestList(("O gato está aqui", "o cão", "gato o está aqui preto")),
            "p2": NBestList(("eu gosto café", "eu gosto de chá .")),
            "p3": NBestList(("bom dia amigo",)),
        },
        "s2": {
            "p1": NBestList(("aqui o gato",)),
            "p3": NBestList(("olá", "bom", "dia bom", "bom dia , amigo")),
        },
    }


def _independent_corpus(system, gold, depth, count):
    """The pseudo-corpus built directly from the paper's description, for sacrebleu."""
    hyps, refs = [], []
    for prompt_id, prompt in gold.items():
        if prompt_id not in system:
            continue
        by_weight = [
            t
            for _, _, t in sorted(
                (-w, i, t) for i, (t, w) in enumerate(zip(prompt.translations, prompt.weights, strict=True))
            )
        ]
        chosen_refs = by_weight if count == ALL else by_weight[:count]
        texts = system[prompt_id].texts
        for hyp in texts if depth == ALL else texts[:depth]:
            hyps.append(hyp)
            refs.append(chosen_refs)
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    return hyps, streams


@pytest.mark.parametrize("depth", [1, 2, ALL])
@pytest.mark.parametrize("count", [1, 2, ALL])
def test_bleu_grid_equals_sacrebleu_corpus_bleu(depth, count) -> None:
    gold, systems = _bleu_gold(), _bleu_systems()
    table = bleu_grid(systems, gold, [depth], [count]).set_index("system")["bleu"]
    for name, system in systems.items():
        hyps, streams = _independent_corpus(system, gold, depth, count)
        expected = sacrebleu.corpus_bleu(hyps, streams, lowercase=True).score
        assert table[name] == pytest.approx(expected, abs=1e-9)
        built_hyps, built_refs = pseudo_corpus(system, gold, depth, count)
        assert (
            built_hyps == hyps and [list(filter(None, r)) for r in zip(*streams, strict=True)] == built_refs
        )


def test_bleu_grid_on_real_gold(data_root: Path) -> None:
    gold_all = read_staple_gold(data_root / "staple2020/en_pt/dev.en_pt.2020-02-20.gold.txt")
    gold = dict(list(gold_all.items())[:15])
    baseline = read_system_file(data_root / "staple2020/en_pt/dev.en_pt.aws_baseline.pred.txt")
    simulated = simulate_system(
        gold, SimulatedSystem("t", 0.8, 0.3, 1.0), 15, 5.0, 2, gold_vocabulary(gold), seed=3
    )
    systems = {"baseline": {p: baseline[p] for p in gold}, "sim": simulated}
    table = bleu_grid(systems, gold, [1, 10, ALL], [1, 100, ALL]).set_index(["system", "x", "y"])["bleu"]
    for name, system in systems.items():
        for depth, count in [(1, 1), (10, 100), (ALL, ALL)]:
            hyps, streams = _independent_corpus(system, gold, depth, count)
            expected = sacrebleu.corpus_bleu(hyps, streams, lowercase=True).score
            assert table[(name, str(depth), str(count))] == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------------------------------------- simulation


def _gold_with(n_prompts: int, n_translations: int) -> dict[str, GoldPrompt]:
    gold = {}
    for p in range(n_prompts):
        weights = np.arange(n_translations, 0, -1, dtype=float)
        texts = tuple(f"frase {p} numero {i} fim" for i in range(n_translations))
        gold[f"p{p}"] = GoldPrompt(f"p{p}", "src", texts, tuple(float(w) for w in weights / weights.sum()))
    return gold


def test_simulation_known_truth_and_determinism() -> None:
    gold = _gold_with(40, 20)
    vocabulary = gold_vocabulary(gold)
    perfect = simulate_system(gold, SimulatedSystem("perfect", 1.0, 1.0, 0.0), 10, 5.0, 2, vocabulary, seed=1)
    # Always valid, no drift: the 10 most frequent translations in frequency order, so AP = 10/20 exactly.
    assert all(nbest.texts == gold[p].translations[:10] for p, nbest in perfect.items())
    lists = {p: [normalize_staple(t) for t in nbest.texts] for p, nbest in perfect.items()}
    valid = {p: set(gold_weights(prompt)) for p, prompt in gold.items()}
    assert mean_average_precision(lists, valid) == pytest.approx(0.5)

    never = simulate_system(gold, SimulatedSystem("never", 0.0, 0.0, 0.0), 15, 5.0, 2, vocabulary, seed=1)
    for p, nbest in never.items():
        keys = [normalize_staple(t) for t in nbest.texts]
        assert not set(keys) & valid[p]  # invalid candidates really are invalid
        assert len(set(keys)) == len(keys)  # and distinct
        assert list(nbest.scores) == sorted(nbest.scores, reverse=True)

    # Constant p_valid = 0.6: the share of valid candidates in the first 10 slots (20 valid available)
    # is Binomial(400, 0.6) / 400, sd 0.0245; allow 4 sd.
    mixed = simulate_system(gold, SimulatedSystem("mixed", 0.6, 0.6, 0.0), 10, 5.0, 2, vocabulary, seed=1)
    share = np.mean([normalize_staple(t) in valid[p] for p, nbest in mixed.items() for t in nbest.texts])
    assert abs(share - 0.6) < 4 * math.sqrt(0.6 * 0.4 / 400)

    again = simulate_system(gold, SimulatedSystem("mixed", 0.6, 0.6, 0.0), 10, 5.0, 2, vocabulary, seed=1)
    other = simulate_system(gold, SimulatedSystem("mixed", 0.6, 0.6, 0.0), 10, 5.0, 2, vocabulary, seed=2)
    assert again == mixed and other != mixed


# ---------------------------------------------------------------------------------------------- experiment


SMALL = {
    "n_systems": 5,
    "list_length": 12,
    "kept_fractions": [0.5, 1.0],
    "bleu_depths": [1, 5, ALL],
    "bleu_references": [1, 5, ALL],
}


def _small_files(tmp_path: Path) -> tuple[Path, Path]:
    gold = _gold_with(12, 8)
    gold_text = "".join(
        f"{p.prompt_id}|src {p.prompt_id}\n"
        + "".join(f"{t}|{w!r}\n" for t, w in zip(p.translations, p.weights, strict=True))
        + "\n"
        for p in gold.values()
    )
    (tmp_path / "gold.txt").write_text(gold_text, encoding="utf-8")
    baseline = "".join(f"{p.prompt_id}|src\n{p.translations[0].capitalize()}\n\n" for p in gold.values())
    (tmp_path / "base.txt").write_text(baseline, encoding="utf-8")
    return tmp_path / "gold.txt", tmp_path / "base.txt"


def run_files(gold: Path, systems: dict[str, Path], params: dict, seed: int) -> dict[str, pd.DataFrame]:
    """The experiment on files, read as the pipeline step reads them; ``params`` as a config writes them (the
    schema's defaults filled in)."""
    loaded = {name: read_system_file(path) for name, path in systems.items()}
    parameters = build(NBestParameters, params)
    return run_nbest_experiment(read_staple_gold(gold), loaded, parameters, seed, sources=systems)


def test_run_nbest_experiment_small(tmp_path: Path) -> None:
    gold_path, baseline_path = _small_files(tmp_path)
    extra = tmp_path / "mine.txt"
    extra.write_text(
        "p0|frase 0 numero 0 fim|-0.1\np0|errado|-0.3\np1|frase 1 numero 2 fim|-1\n", encoding="utf-8"
    )
    results = run_files(gold_path, {"aws_baseline": baseline_path, "mine": extra}, SMALL, seed=11)
    systems = results["systems"].set_index("system")
    assert list(systems.index) == [f"sim{i:02d}" for i in range(1, 6)] + ["aws_baseline", "mine"]
    assert systems["simulated"].sum() == 5 and not systems.loc["aws_baseline", "in_rankings"]
    # The baseline's 1-best is always the most frequent translation: AP = (1/1) / 8 on every prompt.
    assert systems.loc["aws_baseline", "map"] == pytest.approx(1 / 8)
    # mine: p0 AP = 1/8, p1 AP = (1/1)/8, the other 10 prompts 0 -> MAP = 2/8/12.
    assert systems.loc["mine", "map"] == pytest.approx(2 / 8 / 12)
    assert set(results["ablation"]["kept_fraction"]) == {0.5, 1.0}
    assert len(results["bleu_grid"]) == 9 and len(results["bleu_scores"]) == 9 * 7
    full = results["ablation"].set_index("kept_fraction").loc[1.0]
    assert full["spearman"] == pytest.approx(1.0) and full["pearson_rank"] == pytest.approx(1.0)
    # Same seed, same numbers; the grid's correlations agree with scipy on the stored scores.
    again = run_files(gold_path, {"aws_baseline": baseline_path, "mine": extra}, SMALL, seed=11)
    for key, table in results.items():
        pd.testing.assert_frame_equal(table, again[key])
    ranked = systems[systems["in_rankings"]]
    cell = (
        results["bleu_scores"].query("x == '5' and y == 'all'").set_index("system").loc[ranked.index, "bleu"]
    )
    grid = results["bleu_grid"].query("x == '5' and y == 'all'").iloc[0]
    assert grid["spearman"] == pytest.approx(stats.spearmanr(ranked["map"], cell)[0])

    written = plot_all(results, tmp_path / "figures")
    assert len(written) == 12 and all(path.stat().st_size > 0 for path in written)
    again_written = plot_ablation(
        results["ablation"], tmp_path / "again" / "nbest_ablation", "MAP under gold ablation"
    )
    first = plot_ablation(
        results["ablation"], tmp_path / "figures" / "nbest_ablation", "MAP under gold ablation"
    )
    assert [p.read_bytes() for p in again_written] == [p.read_bytes() for p in first]  # deterministic bytes


def test_run_nbest_experiment_rejects_bad_input(tmp_path: Path) -> None:
    gold_path, baseline_path = _small_files(tmp_path)
    with pytest.raises(InputError, match="NBestParameters: unknown key.*n_sytems"):
        run_files(gold_path, {"aws_baseline": baseline_path}, {"n_sytems": 3}, seed=1)
    stray = tmp_path / "stray.txt"
    stray.write_text("nope|frase|-1\n", encoding="utf-8")
    with pytest.raises(InputError, match="not in the gold") as caught:
        run_files(gold_path, {"aws_baseline": baseline_path, "stray": stray}, SMALL, seed=1)
    assert caught.value.path == str(stray)
