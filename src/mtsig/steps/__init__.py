"""The pipeline's steps: one module per ``workflow/rules/*.smk`` file and one function per rule, named after it.

A step reads the rule's input files, calls the library (which takes data, not paths) and writes the rule's outputs;
steps are the only code that reads and writes pipeline files (through :mod:`mtsig.steps.files`, which adds the
manifests). Every step can also be run, and tested, from Python without Snakemake.
"""
