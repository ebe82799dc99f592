"""The names of the human-ranking procedures of :data:`mtsig.stats.system_ranking.PROCEDURES`, in its order
(tests/test_settings.py checks it), at the base of the package: the settings and ``mtsig rank --help`` list them
without importing the procedures or the settings."""

RANKING_PROCEDURES = (
    "wmt24",
    "wmt24_scipy114",
    "wmt25",
    "wmt26",
    "wmt26_paired",
    "wmt26_unpaired",
    "wmt26_ttest",
    "wilcoxon_z",
    "paired_bootstrap",
    "approximate_randomization",
    "stratified_permutation",
    "stratified_permutation_documents",
)
