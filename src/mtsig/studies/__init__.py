"""Beyond the paper: calibration by simulation with known truth (:mod:`mtsig.studies.calibration`), segment-level
meta-evaluation with the RankEval measures (:mod:`mtsig.studies.rankeval`, Avramidis 2013), n-best lists
(:mod:`mtsig.studies.nbest`, Bremerman et al. 2020) and synthetic experiments with planted truth
(:mod:`mtsig.studies.synthetic`)."""
