"""Simulated n-best systems generated from a STAPLE gold (Bremerman, Khayrallah, Oard & Post 2020, Sec. 2: real
n-best lists of STAPLE systems are not public, so the n-best experiment, :func:`mtsig.studies.nbest.
run_nbest_experiment`, evaluates a family of simulated systems whose validity and ordering quality are drawn
independently).

A simulated system's list holds valid gold translations with a probability that decays down the list, taken in
a frequency order blurred by Gumbel noise, and otherwise invalid candidates made by editing gold translations
(:func:`simulate_system`); every random draw comes from :func:`mtsig.stats.seeding.rng_for` with the system's
name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.io.staple import GoldPrompt, NBestList
from mtsig.runtime import portable
from mtsig.settings import NBestParameters
from mtsig.stats.ranking_measures.nbest import normalize_staple, normalized_gold_translations
from mtsig.stats.seeding import rng_for


@dataclass(frozen=True)
class SimulatedSystem:
    """Parameters of one simulated n-best system (see :func:`simulate_system`)."""

    name: str
    p_valid_head: float
    p_valid_tail: float
    drift: float


def simulation_parameters(params: NBestParameters, seed: int) -> list[SimulatedSystem]:
    """Draw each simulated system's parameters independently and uniformly from the configured ranges.

    Drawing validity and ordering quality independently (rather than one "quality" knob) gives systems that
    are good at one thing and poor at another, which is what makes the measures disagree in the paper.
    """
    rng = rng_for(seed, "nbest", "simulation-parameters")
    systems = []
    for index in range(params.n_systems):
        head = rng.uniform(*params.p_valid_head)
        tail = rng.uniform(*params.p_valid_tail)
        drift = rng.uniform(*params.drift)
        systems.append(SimulatedSystem(f"sim{index + 1:02d}", float(head), float(tail), float(drift)))
    return systems


def perturb(words: Sequence[str], vocabulary: Sequence[str], rng: np.random.Generator, edits: int) -> str:
    """Apply ``edits`` random edits to a tokenised translation: drop a word, swap two adjacent words, or
    substitute a word with one drawn from ``vocabulary`` (words of other translations). Drop and swap need two
    words or more; a one-word sentence is substituted."""
    tokens = list(words)
    for _ in range(edits):
        operation = int(rng.integers(3)) if len(tokens) >= 2 else 2
        position = int(rng.integers(len(tokens)))
        if operation == 0:
            del tokens[position]
        elif operation == 1:
            position = min(position, len(tokens) - 2)
            tokens[position], tokens[position + 1] = tokens[position + 1], tokens[position]
        else:
            tokens[position] = vocabulary[int(rng.integers(len(vocabulary)))]
    return " ".join(tokens)


def simulate_system(
    gold: Mapping[str, GoldPrompt],
    system: SimulatedSystem,
    list_length: int,
    head_length: float,
    max_edits: int,
    vocabulary: Sequence[str],
    seed: int,
    normalized_gold: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, NBestList]:
    """A simulated n-best system built from the gold: for each prompt, a ranked list of ``list_length``.

    - Position ``k`` (1-based) holds a valid translation with probability
      ``p_tail + (p_head - p_tail) * exp(-(k - 1) / head_length)`` while valid translations remain, so a system
      can be strong at the head and weak deeper in the list (the pattern behind the paper's Fig. 5).
    - Valid translations are taken in the order of ``log(weight) + drift * G`` (G standard Gumbel noise),
      descending: drift 0 is exact frequency order, large drift a random order.
    - Otherwise the position holds an invalid candidate: a random gold translation of the prompt with 1 to
      ``max_edits`` :func:`perturb` edits, redrawn (up to 20 times, else the slot is left out) until its
      normalised form is neither a gold translation nor already in the list.
    - Model scores are log-probability-like and strictly decreasing down the list: minus the cumulative sum
      of Exponential(0.5) gaps.

    Randomness comes from ``rng_for(seed, "nbest", system.name)`` only. ``normalized_gold`` (prompt -> its
    translations in :func:`normalize_staple` form, :func:`normalized_gold_translations`) saves recomputing them
    for every simulated system.
    """
    rng = rng_for(seed, "nbest", system.name)
    if normalized_gold is None:
        normalized_gold = normalized_gold_translations(gold)
    lists: dict[str, NBestList] = {}
    for prompt_id, prompt in gold.items():
        weights = np.asarray(prompt.weights, dtype=float)
        keys = portable.log(weights) + system.drift * rng.gumbel(size=weights.size)
        order = np.argsort(-keys, kind="stable")
        valid_order = [prompt.translations[i] for i in order]
        normalized = normalized_gold[prompt_id]
        valid_normalized = [normalized[i] for i in order]
        valid_keys = set(normalized)
        tokenised = [t.split() for t in prompt.translations]
        ranks = np.arange(list_length)
        p_valid = system.p_valid_tail + (system.p_valid_head - system.p_valid_tail) * np.exp(
            -ranks / head_length
        )
        draws = rng.random(list_length)
        texts: list[str] = []
        used: set[str] = set()
        next_valid = 0
        for k in range(list_length):
            if draws[k] < p_valid[k] and next_valid < len(valid_order):
                candidate, key = valid_order[next_valid], valid_normalized[next_valid]
                next_valid += 1
                if key in used:  # two gold lines that normalise alike
                    continue
            else:
                candidate = None
                for _ in range(20):
                    source = tokenised[int(rng.integers(len(tokenised)))]
                    attempt = perturb(source, vocabulary, rng, int(rng.integers(1, max_edits + 1)))
                    key = normalize_staple(attempt)
                    if key and key not in valid_keys and key not in used:
                        candidate = attempt
                        break
                if candidate is None:
                    continue
            used.add(key)
            texts.append(candidate)
        scores = -np.cumsum(rng.exponential(0.5, size=len(texts)))
        lists[prompt_id] = NBestList(tuple(texts), tuple(float(s) for s in scores))
    return lists


def gold_vocabulary(gold: Mapping[str, GoldPrompt]) -> list[str]:
    """Every whitespace token of every gold translation, sorted (a deterministic substitution vocabulary)."""
    return sorted({word for prompt in gold.values() for t in prompt.translations for word in t.split()})


def simulated_systems(
    gold: Mapping[str, GoldPrompt], params: NBestParameters, seed: int
) -> dict[str, tuple[SimulatedSystem, dict[str, NBestList]]]:
    """Every simulated system of ``params`` (``n_systems``, the ranges, ``list_length``, ``head_length``,
    ``max_edits``): name -> (its parameters, its n-best lists), in
    :func:`simulation_parameters`' order."""
    vocabulary = gold_vocabulary(gold)
    normalized_gold = normalized_gold_translations(gold)
    return {
        spec.name: (
            spec,
            simulate_system(
                gold,
                spec,
                params.list_length,
                params.head_length,
                params.max_edits,
                vocabulary,
                seed,
                normalized_gold,
            ),
        )  # fmt: skip
        for spec in simulation_parameters(params, seed)
    }
