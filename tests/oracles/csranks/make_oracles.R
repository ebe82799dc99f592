# The csranks oracle of tests/test_rank_sets.py: csranks's confidence sets for ranks on fixed inputs, with the
# bootstrap draws csranks used (so that mtsig, fed the same draws, must give the same bounds) and, separately, at a
# large number of draws (mtsig's own draws may then differ only where a Monte Carlo boundary flips).
#
#   Rscript tests/oracles/csranks/make_oracles.R tests/oracles/csranks
#
# (``--recorded-only``: only the runs with recorded draws, a few seconds.)
#
# csranks draws its bootstrap with MASS::mvrnorm after set.seed(seed), afresh at each stepdown step and, for a
# marginal set, again per population (csranks_marg reseeds for each index). The draws are recorded by tracing
# MASS::mvrnorm (its return value; the covariance is given dimnames 0..p-1, so each draw's columns name the
# populations the step needed); every run is computed a second time untraced and without dimnames, and must give
# the same bounds. The first draws of every recorded run are checked against set.seed(seed); MASS::mvrnorm(R, 0,
# Sigma), the call csranks makes.
suppressPackageStartupMessages({library(csranks); library(MASS)})
args <- commandArgs(trailingOnly = TRUE)
recorded_only <- "--recorded-only" %in% args   # skips the runs with many draws (about 20 minutes)
args <- setdiff(args, "--recorded-only")
out <- if (length(args)) args[1] else "."
fmt <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))

# ---- inputs ---------------------------------------------------------------------------------------------------
data(pisa2018)
write.table(data.frame(jurisdiction = pisa2018$jurisdiction,
                       lapply(pisa2018[, -1], fmt)),
            file.path(out, "pisa2018.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")

ar1 <- function(se, rho) outer(se, se) * rho^abs(outer(seq_along(se), seq_along(se), "-"))
cases <- list(
  pisa2018_math = list(systems = pisa2018$jurisdiction, x = pisa2018$math_score,
                       se = pisa2018$math_se, Sigma = diag(pisa2018$math_se^2)),
  synthetic_full = list(systems = paste0("sys", 1:8), x = c(2.0, 1.9, 1.7, 1.2, 1.15, 0.8, 0.3, 0.0),
                        se = NULL, Sigma = ar1(c(0.10, 0.12, 0.15, 0.11, 0.20, 0.14, 0.18, 0.25), 0.6)),
  two = list(systems = c("a", "b"), x = c(0.5, 0.0), se = c(0.2, 0.2), Sigma = diag(c(0.2, 0.2)^2)),
  ties = list(systems = c("a", "b", "c", "d", "e"), x = c(3, 3, 2, 1, 1), se = rep(0.4, 5),
              Sigma = diag(rep(0.4, 5)^2)),
  singular = list(systems = c("a", "b", "c"), x = c(0.3, 0.1, 0.0), se = NULL,
                  Sigma = 0.01 * matrix(c(1, 0.5, 1.5, 0.5, 1, 1.5, 1.5, 1.5, 3), 3, 3))
)
inputs <- do.call(rbind, lapply(names(cases), function(k) {
  cs <- cases[[k]]
  data.frame(case = k, index = seq_along(cs$x) - 1, system = cs$systems, estimate = fmt(cs$x),
             se = if (is.null(cs$se)) "NA" else fmt(cs$se))
}))
write.table(inputs, file.path(out, "inputs.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")
covs <- do.call(rbind, lapply(names(cases), function(k) {
  cs <- cases[[k]]
  if (!is.null(cs$se)) return(NULL)
  p <- length(cs$x)
  g <- expand.grid(col = 1:p, row = 1:p)
  data.frame(case = k, row = g$row - 1, col = g$col - 1, value = fmt(cs$Sigma[cbind(g$row, g$col)]))
}))
write.table(covs, file.path(out, "covariances.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")

# ---- recording csranks's draws --------------------------------------------------------------------------------
recorder <- new.env()
recorder$calls <- list()
trace("mvrnorm", where = asNamespace("MASS"), print = FALSE,
      exit = quote({r <- get("recorder", envir = globalenv()); r$calls[[length(r$calls) + 1]] <- returnValue()}))

# One csranks call per run: kind, side, stepdown, coverage, tau; targets (0-based) of a marginal run.
call_csranks <- function(cs, Sigma, run) {
  p <- length(cs$x)
  if (run$kind == "simultaneous") {
    r <- csranks(cs$x, Sigma, coverage = run$coverage, cstype = run$side, stepdown = run$stepdown, R = run$R,
                 simul = TRUE, seed = run$seed)
    return(data.frame(index = 0:(p - 1), rank = r$rank, lower = r$L, upper = r$U, member = NA))
  }
  if (run$kind == "marginal") {
    idx <- run$targets + 1
    r <- csranks(cs$x, Sigma, coverage = run$coverage, cstype = run$side, stepdown = run$stepdown, R = run$R,
                 simul = FALSE, indices = idx, seed = run$seed)
    return(data.frame(index = run$targets, rank = r$rank, lower = r$L, upper = r$U, member = NA))
  }
  f <- if (run$kind == "tau_best") cstaubest else cstauworst
  m <- f(cs$x, Sigma, tau = run$tau, coverage = run$coverage, stepdown = run$stepdown, R = run$R, seed = run$seed)
  data.frame(index = 0:(p - 1), rank = irank(cs$x), lower = NA, upper = NA, member = m)
}

blobs <- list(); blob_rows <- list(); draw_rows <- list()
blob_of <- function(z) {
  for (b in seq_along(blobs)) if (identical(dim(blobs[[b]]), dim(z)) && identical(unname(blobs[[b]]), unname(z)) &&
                                  identical(colnames(blobs[[b]]), colnames(z))) return(b - 1)
  blobs[[length(blobs) + 1]] <<- z
  length(blobs) - 1
}
record <- function(run_id, key, calls) {
  for (step in seq_along(calls)) {
    draw_rows[[length(draw_rows) + 1]] <<- data.frame(run = run_id, key = key, step = step - 1,
                                                      blob = blob_of(calls[[step]]))
  }
}

runs <- list(); bounds <- list()
add_run <- function(case, kind, side, stepdown, coverage, tau, R, seed, draws, targets = NULL) {
  cs <- cases[[case]]
  p <- length(cs$x)
  run <- list(kind = kind, side = side, stepdown = stepdown, coverage = coverage, tau = tau, R = R, seed = seed,
              targets = if (is.null(targets)) 0:(p - 1) else targets)
  id <- length(runs)
  plain <- call_csranks(cs, cs$Sigma, run)
  if (draws == "recorded") {
    named <- cs$Sigma
    dimnames(named) <- list(as.character(0:(p - 1)), as.character(0:(p - 1)))
    if (kind == "marginal") {
      # csranks_marg calls csranks_simul per index with the same seed: record each index on its own.
      per_target <- do.call(rbind, lapply(run$targets, function(t) {
        recorder$calls <- list()
        r <- call_csranks(cs, named, modifyList(run, list(targets = t)))
        record(id, as.character(t), recorder$calls)
        first <- recorder$calls[[1]]
        set.seed(seed)
        stopifnot(identical(unname(first), unname(mvrnorm(R, rep(0, ncol(first)), cs$Sigma[as.integer(colnames(first)) + 1, as.integer(colnames(first)) + 1]))))
        r
      }))
      stopifnot(identical(per_target, plain))
    } else {
      recorder$calls <- list()
      stopifnot(identical(call_csranks(cs, named, run), plain))
      record(id, "none", recorder$calls)
      set.seed(seed)
      stopifnot(identical(unname(recorder$calls[[1]]), unname(mvrnorm(R, rep(0, p), cs$Sigma))))
    }
  }
  runs[[length(runs) + 1]] <<- data.frame(run = id, case = case, kind = kind, side = side, stepdown = stepdown,
                                          coverage = coverage, tau = ifelse(is.null(tau), NA, tau), R = R,
                                          seed = seed, draws = draws,
                                          targets = paste(run$targets, collapse = ","))
  bounds[[length(bounds) + 1]] <<- cbind(run = id, plain)
}

all_runs <- function(case, R, seed, draws, marginal_targets = NULL, taus = c(1, 3), coverages = 0.95) {
  for (coverage in coverages) for (stepdown in c(TRUE, FALSE)) {
    for (side in c("two-sided", "lower", "upper")) {
      add_run(case, "simultaneous", side, stepdown, coverage, NULL, R, seed, draws)
      add_run(case, "marginal", side, stepdown, coverage, NULL, R, seed, draws, marginal_targets)
    }
    for (tau in taus) {
      add_run(case, "tau_best", "lower", stepdown, coverage, tau, R, seed, draws)
      add_run(case, "tau_worst", "upper", stepdown, coverage, tau, R, seed, draws)
    }
  }
}

# csranks's draws recorded: every bound must be equal.
pisa_targets <- c(19, 36, 2, 5)   # Japan (first), United Kingdom, Belgium, Colombia (last): 0-based rows
all_runs("pisa2018_math", R = 60, seed = 2018, draws = "recorded", marginal_targets = pisa_targets,
         taus = c(1, 5), coverages = c(0.95, 0.75))
all_runs("synthetic_full", R = 200, seed = 7, draws = "recorded", taus = c(1, 3, 8))
all_runs("two", R = 500, seed = 1, draws = "recorded", taus = 1)
all_runs("ties", R = 300, seed = 3, draws = "recorded", taus = c(1, 2, 5))
all_runs("singular", R = 300, seed = 4, draws = "recorded", taus = 1)
untrace("mvrnorm", where = asNamespace("MASS"))

# Many draws, csranks's own: mtsig's own draws may differ only at Monte Carlo boundaries.
if (!recorded_only) for (stepdown in c(TRUE, FALSE)) for (side in c("two-sided", "lower", "upper")) {
  add_run("pisa2018_math", "simultaneous", side, stepdown, 0.95, NULL, 100000, 11, "own")
  add_run("synthetic_full", "simultaneous", side, stepdown, 0.95, NULL, 100000, 12, "own")
  add_run("synthetic_full", "marginal", side, stepdown, 0.95, NULL, 100000, 13, "own")
}
if (!recorded_only) for (tau in c(1, 5)) add_run("pisa2018_math", "tau_best", "lower", TRUE, 0.95, tau, 100000, 11, "own")

# ---- writing --------------------------------------------------------------------------------------------------
write.table(do.call(rbind, runs), file.path(out, "runs.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")
b <- do.call(rbind, bounds)
b$member <- ifelse(is.na(b$member), "NA", ifelse(b$member, "TRUE", "FALSE"))
write.table(b, file.path(out, "bounds.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, na = "NA")
write.table(do.call(rbind, draw_rows), file.path(out, "draws.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")
offset <- 0
con <- gzfile(file.path(out, "draws.bin.gz"), "wb")
for (i in seq_along(blobs)) {
  z <- blobs[[i]]
  blob_rows[[i]] <- data.frame(blob = i - 1, offset = offset, rows = nrow(z), cols = ncol(z),
                               populations = paste(colnames(z), collapse = ","))
  writeBin(as.vector(z), con, size = 8, endian = "little")   # column-major: one population after another
  offset <- offset + length(z)
}
close(con)
write.table(do.call(rbind, blob_rows), file.path(out, "blobs.tsv"), sep = "\t", quote = FALSE, row.names = FALSE, fileEncoding = "UTF-8")
writeLines(c(paste("csranks", as.character(packageVersion("csranks"))),
             paste("MASS", as.character(packageVersion("MASS"))),
             R.version.string, paste("RNG", paste(RNGkind(), collapse = " "))),
           file.path(out, "versions.txt"))
