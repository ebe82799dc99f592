"""Beyond the paper: calibration by simulation with known truth (:mod:`mtsig.studies.calibration`), segment-level
meta-evaluation with the RankEval measures (:mod:`mtsig.studies.rankeval`, Avramidis 2013), n-best lists
(:mod:`mtsig.studies.nbest`, Bremerman et al. 2020), synthetic experiments with planted truth
(:mod:`mtsig.studies.synthetic`), a metrics shared task's system-level results, reproduced
(:mod:`mtsig.studies.metrics_task`, the WMT20 metrics task), and the WMT23/24 metrics-task protocols on expert MQM
with what mtsig adds on the same data (the package :mod:`mtsig.studies.metrics_protocol`)."""
