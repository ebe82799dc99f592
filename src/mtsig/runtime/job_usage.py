"""What a pipeline job used, recorded by the job itself beside its log: its wall time, its CPU time (its own and its
waited-for children's), its peak memory and the load, in the columns of Snakemake's ``benchmark:`` files, which
``benchmarks/bench_pipeline.py`` reads.

Why not Snakemake's ``benchmark:`` directive: it samples every job's process tree from Snakemake's own process
(every 0.5 s for a job's first 15 s, reading each process's ``/proc/<pid>/smaps_rollup``), which took a large share
of Snakemake's own CPU, and it misses the CPU of jobs longer than 15 s; the kernel's own accounting (``getrusage``)
is exact and costs the job nothing until it ends.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

#: The columns of a job's usage file (those of Snakemake's ``benchmark:`` files).
JOB_USAGE_COLUMNS = ("s", "cpu_time", "max_rss", "mean_load")


def job_usage_path(log_path: str | os.PathLike[str]) -> Path:
    """``logs/<experiment>/<rule>.benchmark.tsv`` beside the job's log ``logs/<experiment>/<rule>.log``."""
    return Path(str(log_path).removesuffix(".log") + ".benchmark.tsv")


def process_age_seconds() -> float:
    """Seconds since this process started, from Linux's proc(5): the start time in clock ticks after boot (field 22
    of ``/proc/self/stat``) against ``/proc/uptime``; NaN where there is no ``/proc``."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except OSError:
        return float("nan")
    return uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")


def job_usage() -> tuple[float, float, float, float]:
    """(wall s since the process started, CPU s, peak resident MB, 1-minute load) of this process so far.

    CPU is user + system time of the process and of the children it waited for (the Meteor JVM, the metric
    statistics' worker processes); peak memory is that of the largest of them (``getrusage``)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        process_age_seconds(),
        own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
        max(own.ru_maxrss, children.ru_maxrss) / 1024,  # Linux reports kilobytes
        os.getloadavg()[0],
    )


def write_job_usage(path: str | os.PathLike[str]) -> None:
    """Write :func:`job_usage` to ``path`` as a header and one row, tab-separated."""
    values = "\t".join(f"{value:.2f}" for value in job_usage())
    Path(path).write_text("\t".join(JOB_USAGE_COLUMNS) + "\n" + values + "\n", encoding="utf-8")
