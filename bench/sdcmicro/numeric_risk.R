# Issue 34, numeric risk and information loss: sdcMicro 5.8.1's figures on
# perturbed numeric files, for tests/numeric_risk.rs to compare anonlab's
# with (1e-9).
#
# Data: testdata's income, expend, savings (tests/data/sdcmicro/testdata.csv,
# 4,580 records) and UCI Adult's only numeric column, age. Adult is cut to
# its first 5,000 records: sdcMicro's dRiskRMD builds the full n x n
# distance matrix (as.matrix(stats::dist(xm))), which for Adult's 30,162
# records needs > 10 GB; covMcd on the whole age column is reported apart.
#
# Perturbed files, made by sdcMicro with set.seed(34) before each call:
# addNoise(method = "additive", noise = 10) and microaggregation(method =
# "mdav", aggr = 3) (on Adult's single column sdcMicro runs mafast). Each is
# written to tests/data/sdcmicro/numeric_<data>_<method>.csv with 17
# significant digits and READ BACK, and every figure below is computed on
# the values read back, so anonlab reads exactly the same doubles.
#
# Figures per (data, method):
#   dRisk(x, xm) (k = 0.05); dRiskRMD(x, xm) (k = 0.01, k2 = 0.05): risk1,
#   risk2, wrisk1, wrisk2, the at-risk indices; covMcd(scale(x)) as dRiskRMD
#   calls it (set.seed(34) first, its random subsets): cov, raw.cov, center,
#   raw.cnp2, cnp2, best (the h-subset, sorted); dUtility IL1s, eigen,
#   robeigen (set.seed(34) before it) and the two MCD covariances it uses;
#   and, computed here in plain R (sdcMicro has no function for them):
#   * means: mean over columns of |mean(x_j) - mean(xm_j)| / |mean(x_j)|
#   * covariances: mean over entries i <= j of |cov_x - cov_xm| / |cov_x|
#   * correlations: mean over entries i < j of |cor_x - cor_xm|
#     (all on the raw, unscaled columns; R's cov and cor)
#   * distance-based linkage: both files scaled as dRiskRMD scales them
#     (scale(x), scale(xm): each by its own mean and sd); for every original
#     record the squared Euclidean distances to all published records,
#     summed column by column left to right; a record whose own published
#     record is among the t nearest (ties by exact equality) counts 1/t; the
#     share is the sum over records / n. Also the own record's rank (1 +
#     number of published records strictly nearer) for the first 50 records
#     and the rank histogram 1, 2, 3, 4, 5, >5.
#
# usage: R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/numeric_risk.R \
#          [TESTDATA_CSV] [ADULT_CSV] [OUT_JSON] [DATA_DIR]
suppressPackageStartupMessages({ library(sdcMicro); library(robustbase); library(jsonlite) })
a <- commandArgs(trailingOnly = TRUE)
testdata_csv <- if (length(a) >= 1) a[1] else "tests/data/sdcmicro/testdata.csv"
adult_csv <- if (length(a) >= 2) a[2] else "../shared/data/adult/adult.csv"
out_json <- if (length(a) >= 3) a[3] else "tests/golden/sdcmicro_numeric.json"
data_dir <- if (length(a) >= 4) a[4] else "tests/data/sdcmicro"
SEED <- 34
ADULT_ROWS <- 5000

write_back <- function(xm, path) {
  xm <- as.data.frame(xm)
  lines <- c(paste(names(xm), collapse = ","),
             do.call(paste, c(lapply(xm, function(v) sprintf("%.17g", v)), sep = ",")))
  writeLines(lines, path)
  read.csv(path)
}

linkage <- function(x, xm) {
  xs <- scale(x); xms <- scale(xm)
  n <- nrow(xs); p <- ncol(xs)
  share <- 0; rank <- integer(n)
  for (i in seq_len(n)) {
    d <- (xms[, 1] - xs[i, 1])^2
    if (p > 1) for (j in 2:p) d <- d + (xms[, j] - xs[i, j])^2
    m <- min(d)
    if (d[i] == m) share <- share + 1 / sum(d == m)
    rank[i] <- 1L + sum(d < d[i])
  }
  list(share = share / n, first_ranks = head(rank, 50),
       rank_histogram = as.integer(c(sapply(1:5, function(r) sum(rank == r)), sum(rank > 5))))
}

moments_loss <- function(x, xm) {
  x <- as.matrix(x); xm <- as.matrix(xm)
  mx <- colMeans(x); mm <- colMeans(xm)
  cx <- cov(x); cm <- cov(xm)
  up <- upper.tri(cx, diag = TRUE)
  out <- list(means = mean(abs(mx - mm) / abs(mx)),
              covariances = mean(abs(cx[up] - cm[up]) / abs(cx[up])))
  if (ncol(x) > 1) {
    rx <- cor(x); rm <- cor(xm); st <- upper.tri(rx)
    out$correlations <- mean(abs(rx[st] - rm[st]))
  }
  out
}

mcd_figures <- function(x) {
  set.seed(SEED)
  m <- covMcd(scale(x))
  list(cov = as.numeric(m$cov), raw_cov = as.numeric(m$raw.cov),
       raw_center = as.numeric(m$raw.center), quan = m$quan,
       raw_cnp2 = as.numeric(m$raw.cnp2), cnp2 = as.numeric(m$cnp2),
       best = if (is.null(m$best)) NULL else as.integer(m$best),
       crit = m$crit)
}

figures <- function(data, method, x, xm, secs) {
  x <- as.data.frame(x); xm <- as.data.frame(xm)
  set.seed(SEED)
  t0 <- Sys.time()
  r <- dRiskRMD(x, xm = xm)
  rmd_secs <- as.numeric(Sys.time() - t0, units = "secs")
  set.seed(SEED)
  robeigen <- dUtility(x, xm = xm, method = "robeigen")
  # The two covMcd calls robeigen makes, in its order after the same seed.
  set.seed(SEED)
  rx <- covMcd(scale(x)); rxm <- covMcd(scale(xm))
  c(list(data = data, method = method, rows = nrow(x), columns = names(x),
         perturb_seconds = secs,
         drisk = dRisk(x, xm = xm),
         rmd = list(risk1 = r$risk1, risk2 = r$risk2, wrisk1 = r$wrisk1, wrisk2 = r$wrisk2,
                    index_risk1 = as.integer(r$indexRisk1),
                    index_risk2 = as.integer(r$indexRisk2),
                    seconds = rmd_secs),
         mcd = mcd_figures(x),
         il1s = dUtility(x, xm = xm, method = "IL1s"),
         eigen = dUtility(x, xm = xm, method = "eigen"),
         robeigen = robeigen,
         robeigen_covs = list(x = as.numeric(rx$cov), xm = as.numeric(rxm$cov),
                              xm_best = if (is.null(rxm$best)) NULL else as.integer(rxm$best)),
         linkage = linkage(x, xm)),
    moments_loss(x, xm))
}

perturb <- function(data, x, vars) {
  out <- list()
  set.seed(SEED)
  t0 <- Sys.time()
  xm <- addNoise(x, variables = vars, noise = 10, method = "additive")$xm
  secs <- as.numeric(Sys.time() - t0, units = "secs")
  xm <- write_back(xm[, vars, drop = FALSE], file.path(data_dir, sprintf("numeric_%s_noise.csv", data)))
  out[[1]] <- figures(data, "addNoise(method = 'additive', noise = 10)", x, xm, secs)
  set.seed(SEED)
  t0 <- Sys.time()
  xm <- microaggregation(x, variables = vars, method = "mdav", aggr = 3)$mx
  secs <- as.numeric(Sys.time() - t0, units = "secs")
  xm <- write_back(xm[, vars, drop = FALSE], file.path(data_dir, sprintf("numeric_%s_mdav.csv", data)))
  out[[2]] <- figures(data, "microaggregation(method = 'mdav', aggr = 3)", x, xm, secs)
  out
}

td <- read.csv(testdata_csv)
vars <- c("income", "expend", "savings")
x_td <- td[, vars]
ad <- read.csv(adult_csv, sep = ";", strip.white = TRUE, check.names = FALSE)
x_ad <- data.frame(age = as.numeric(ad$age[seq_len(ADULT_ROWS)]))
runs <- c(perturb("testdata", x_td, vars), perturb("adult", x_ad, "age"))
adult_full <- mcd_figures(data.frame(age = as.numeric(ad$age)))
adult_full$rows <- nrow(ad)
out <- list(tool = paste("sdcMicro", packageVersion("sdcMicro")),
            robustbase = paste("robustbase", packageVersion("robustbase")),
            r = R.version.string,
            generated_by = "bench/sdcmicro/numeric_risk.R",
            seed = SEED, adult_rows = ADULT_ROWS,
            drisk_k = 0.05, rmd_k = 0.01, rmd_k2 = 0.05,
            runs = runs, adult_age_mcd = adult_full)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"), out_json)
