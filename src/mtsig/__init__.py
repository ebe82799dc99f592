"""mtsig: testing the significance tests of machine-translation evaluation.

Reproduces Graham, Mathur & Baldwin (2014), *Randomized Significance Tests in Machine Translation*,
and extends it (see README.md). All logic lives in this package; the Snakemake workflow only calls it.

The main entry points are importable from the package itself (docs/cli.md, "From Python"), each loaded on first
use (PEP 562), so that ``import mtsig`` stays cheap (every pipeline job imports it):

- the metrics: :func:`get_metric`, :data:`METRICS` and the metric classes;
- the pairwise randomized tests: :func:`pairwise_tests` with :class:`ResamplingOptions` (:data:`TESTS`);
- the metric meta-evaluation: :func:`correlation`, :func:`mad_outliers`, :func:`williams_table`,
  :func:`williams_matrix`, :func:`winners`, :func:`bootstrap_correlations`, :func:`perm_both_matrix`, :func:`pairwise_accuracy`;
- the metrics-task protocols and their tables: :data:`PROTOCOLS`, :func:`read_test_set`,
  :func:`required_scores`, :func:`read_requested_scores`, :func:`run_protocol` with :class:`RunOptions`,
  :func:`protocol_table_text`;
- the human-ranking procedures: :func:`read_esa`, :func:`item_scores`, :func:`rank_systems`, :data:`PROCEDURES`;
- :class:`InputError`, what bad input raises.

The settings dataclasses are :mod:`mtsig.settings`.
"""

__version__ = "0.1.0"

#: Public name -> the module that defines it (loaded on first use).
PUBLIC: dict[str, str] = {
    # metrics
    "get_metric": "mtsig.metrics",
    "METRICS": "mtsig.metrics",
    "BLEU": "mtsig.metrics",
    "CHRF": "mtsig.metrics",
    "METEOR": "mtsig.metrics",
    "NIST": "mtsig.metrics",
    "TER": "mtsig.metrics",
    # the pairwise randomized tests
    "pairwise_tests": "mtsig.stats.resampling",
    "ResamplingOptions": "mtsig.stats.resampling",
    "TESTS": "mtsig.stats.resampling",
    # the metric meta-evaluation
    "correlation": "mtsig.stats.meta_evaluation.system_level",
    "williams_table": "mtsig.stats.meta_evaluation.system_level",
    "williams_matrix": "mtsig.stats.meta_evaluation.system_level",
    "winners": "mtsig.stats.meta_evaluation.system_level",
    "mad_outliers": "mtsig.stats.meta_evaluation.system_level",
    "bootstrap_correlations": "mtsig.stats.meta_evaluation.metric_comparison",
    "perm_both_matrix": "mtsig.stats.meta_evaluation.metric_comparison",
    "pairwise_accuracy": "mtsig.stats.meta_evaluation.metric_comparison",
    # the metrics-task protocols and their tables
    "PROTOCOLS": "mtsig.studies.metrics_protocol",
    "RunOptions": "mtsig.studies.metrics_protocol",
    "run_protocol": "mtsig.studies.metrics_protocol",
    "required_scores": "mtsig.studies.metrics_protocol",
    "read_test_set": "mtsig.io.mtme",
    "read_requested_scores": "mtsig.io.mtme",
    "protocol_table_text": "mtsig.report.metrics_protocol",
    # the human-ranking procedures
    "read_esa": "mtsig.io.esa",
    "item_scores": "mtsig.stats.system_ranking",
    "rank_systems": "mtsig.stats.system_ranking",
    "PROCEDURES": "mtsig.stats.system_ranking",
    # bad input
    "InputError": "mtsig.errors",
}

__all__ = ["__version__", *PUBLIC]


def __getattr__(name: str) -> object:
    """A public name, imported from its module the first time it is asked for (then kept in the package)."""
    if name not in PUBLIC:
        raise AttributeError(f"module 'mtsig' has no attribute {name!r}")
    import importlib  # here, not at the top: ``import mtsig`` imports nothing

    value = getattr(importlib.import_module(PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *PUBLIC})
