"""How the library computes, whatever the machine: the same bits on every CPU (:mod:`mtsig.runtime.portable`, its
compiled loop :mod:`mtsig.runtime.portable_compiled`), numba kernels compiled once per machine
(:mod:`mtsig.runtime.numba_compilation`), progress reports of long work (:mod:`mtsig.runtime.progress`), what a
pipeline job used (:mod:`mtsig.runtime.job_usage`) and a job's hard stop on purpose, for the tests of the recovery
after one (:mod:`mtsig.runtime.hard_stop`).

The base layer, beside :mod:`mtsig.errors` and :mod:`mtsig.settings`: it imports nothing else of mtsig.
"""
