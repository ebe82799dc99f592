"""The settings of the run's top-level blocks: the resampling engine, the evaluation and its clusters, and the
studies configured once per run (segment level, calibration, power, replicability, meta-evaluation, figures,
verification)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mtsig.settings.building import _readonly
from mtsig.settings.studies import CALIBRATED_PROCEDURES

# --- resampling and evaluation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resampling:
    """``resampling``: the randomized tests' samples, seed and p-value rule, and the engine's settings
    (:data:`ENGINE_SETTINGS`, which change no number)."""

    seed: int = 20140626
    samples: int | Mapping[str, int] = 10000
    pvalue: str = "c/B"
    memory_cap_mb: int = 1024
    pair_shards: int = 1
    tests: tuple[str, ...] = ("paired_bootstrap", "bootstrap", "approximate_randomization")
    mean_block_length: float = 10.0
    distribution_gap_quantile: float = 0.75
    confidence: float = 0.95
    distribution_pairs: str | tuple[tuple[str, str], ...] = "auto"

    @property
    def memory_cap_bytes(self) -> int:
        return self.memory_cap_mb * 2**20


#: The settings of :class:`Resampling` that change how the engine works, never a number it writes (docs/design.md,
#: "Memory cap and sharding"): kept out of every rule's ``params``, so that changing them makes Snakemake rerun
#: nothing finished; they reach their jobs as resources (:func:`mtsig.steps.engine_params`).
ENGINE_SETTINGS = ("memory_cap_mb", "pair_shards")

#: The engine's memory cap by default, in bytes (:attr:`Resampling.memory_cap_bytes` of the default settings): the
#: default of every library function that takes the cap.
MEMORY_CAP_BYTES = Resampling.memory_cap_mb * 2**20


@dataclass(frozen=True)
class Clusters:
    """``evaluation.clusters``: WMT-style significance clusters."""

    test: str = "paired_bootstrap"
    alpha: float = 0.05
    correction: str = "none"
    rule: str = "all_pairs"


@dataclass(frozen=True)
class Evaluation:
    """``evaluation``: the levels and corrections of the tests' accuracy, and the clusters."""

    alphas: tuple[float, ...] = (0.05, 0.01, 0.001)
    corrections: tuple[str, ...] = ("holm", "benjamini_hochberg")
    clusters: Clusters = field(default_factory=Clusters)


@dataclass(frozen=True)
class SegmentLevel:
    """``segment_level``: the RankEval measures of the experiments with ranking data and the JCML sets."""

    experiments: tuple[str, ...] = ()
    jcml: Mapping[str, str] = _readonly()
    bootstrap_samples: int = 1000
    convention: str = "both"
    predicted_rankings: Mapping[str, Mapping[str, str]] = _readonly()


@dataclass(frozen=True)
class Calibration:
    """``calibration``: the calibration study by simulation and Section 2 in numbers."""

    experiments: tuple[str, ...] = ()
    null_pairs: int = 200
    samples: int = 1000
    alphas: tuple[float, ...] = (0.01, 0.05, 0.1)
    q: tuple[float, ...] = (0.51, 0.52, 0.53, 0.55, 0.6, 0.75, 1.0)
    swap_units: tuple[str, ...] = ("segment", "document")
    alternatives_per_q: int = 50
    planted_alpha: float = 0.05
    figure_alpha: float = 0.05
    section2_pairs: int = 5


@dataclass(frozen=True)
class HumanRankingCalibration:
    """``human_ranking_calibration``: error rates of the human-ranking procedures with known truth
    (:mod:`mtsig.studies.ranking_calibration`), on the ESA ratings of the human-ranking experiment ``experiment``
    (its ``ratings``, ``documents`` and ``first_segment_id``), written under ``results/<folder>/`` (None: the
    experiment's name)."""

    experiment: str = "wmt24-esa"
    folder: str | None = None
    language_pairs: tuple[str, ...] = ()
    procedures: tuple[str, ...] = CALIBRATED_PROCEDURES
    exchange_units: tuple[str, ...] = ("item", "document")
    null_pairs: int = 300
    shifts: tuple[float, ...] = (1.0, 2.0, 4.0)
    heterogeneous_shifts: tuple[float, ...] = (6.0,)
    alternative_pairs: int = 100
    cluster_tiers: tuple[int, ...] = (1, 2, 2)
    cluster_sorting: float = 0.4
    cluster_sets: int = 40
    cluster_designs: tuple[str, ...] = (
        "clusters",
        "clusters_document",
        "clusters_fixed",
        "clusters_dynamic",
        "clusters_document_fixed",
        "clusters_document_dynamic",
    )
    allocation_budget: float = 0.5
    dynamic_models: int = 3
    dynamic_coldstart: int = 20
    dynamic_coldstart_pool: int = 20
    rank_sets: tuple[str, ...] = ("items", "documents")
    rank_set_draws: int = 1000
    rank_set_coverage: float = 0.95
    flips: bool = True

    @property
    def results_folder(self) -> str:
        """The folder under ``results/`` the study writes into (``results/<folder>/calibration.tsv``)."""
        return self.folder or self.experiment


@dataclass(frozen=True)
class Power:
    """``power``: power by test-set size and planted difference."""

    experiments: tuple[str, ...] = ("wmt12-es-en",)
    metric: str = "bleu"
    test: str = "paired_bootstrap"
    alpha: float = 0.05
    trials: int = 50
    samples: int = 200
    q: tuple[float, ...] = (0.5, 0.53, 0.56, 0.6, 0.7, 0.85, 1.0)
    target_power: float = 0.8


@dataclass(frozen=True)
class Replicability:
    """``replicability``: partial conjunction tests and the delta-agreement curves."""

    alpha: float = 0.05
    bootstrap_samples: int = 200
    metric_outlier_cutoff: float = 25.0


@dataclass(frozen=True)
class MetaEvaluation:
    """``meta_evaluation``: which metric agrees with the humans, per experiment."""

    alpha: float = 0.05
    bootstrap_samples: int = 1000
    permutation_samples: int = 1000
    confidence: float = 0.95


@dataclass(frozen=True)
class Figures:
    """``figures``: the formats of the figures."""

    pdf: bool = False


@dataclass(frozen=True)
class Verification:
    """``verification``: the checksum list of artifact review."""

    expected: str = "checksums/default-run.tsv"


@dataclass(frozen=True)
class RunSettings:
    """The settings of the run's top-level blocks, built once when the Snakefile is parsed
    (:func:`mtsig.pipeline.config.run_settings`; the rules' params come from them, so a misspelt field fails
    then)."""

    resampling: Resampling
    evaluation: Evaluation
    segment_level: SegmentLevel
    calibration: Calibration
    human_ranking_calibration: HumanRankingCalibration
    power: Power
    replicability: Replicability
    meta_evaluation: MetaEvaluation
    figures: Figures
    verification: Verification
