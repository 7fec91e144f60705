# Issue 34, first part: sdcMicro's MDAV beside anonlab's. Runs sdcMicro's
# MDAV at k = 3 and 5 on testdata's income, expend and savings (together)
# (and within the strata of urbrur) and on UCI Adult's age, and mu-Argus's optimal univariate method
# (argus_microaggregation(useOptimal = TRUE), Hansen-Mukherjee) on Adult's
# age; writes one JSON document of figures (no per-row data) that
# tests/microaggregation.rs compares anonlab's output with.
#
# sdcMicro returns no group ids, only the aggregated values, so a row's
# group is read from its aggregated values: rows with the same values
# (compared as the doubles they are) are one group. Two MDAV groups with
# the same mean merge under this reading (on Adult's age many groups are
# "all 17"); anonlab's test reads its own output the same way, so the two
# partitions are compared at the same resolution. Labels are numbered by
# first appearance in row order, and `partition_hash` folds them
# (h = (h * 1000003 + label) mod 2147483647, exact in doubles), so a test
# can check the whole partition without the file holding it.
#
# microaggregation(method = "mdav") on a single variable does not run MDAV:
# R/microaggregation.R sends any one-variable call to mafast (fixed groups
# of aggr in sorted order, the remainder joining the last). Adult's age is
# therefore run through sdcMicro's internal mdav() (R/mdav.R, the same C++
# Mdav the multivariate call uses); the mafast result is reported too.
#
# usage: R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/microaggregation.R \
#          [TESTDATA_CSV] [ADULT_CSV] [OUT_JSON]
# defaults: tests/data/sdcmicro/testdata.csv, ../shared/data/adult/adult.csv,
# tests/golden/sdcmicro_mdav.json (run from the repository root).
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
a <- commandArgs(trailingOnly = TRUE)
testdata_csv <- if (length(a) >= 1) a[1] else "tests/data/sdcmicro/testdata.csv"
adult_csv <- if (length(a) >= 2) a[2] else "../shared/data/adult/adult.csv"
out_json <- if (length(a) >= 3) a[3] else "tests/golden/sdcmicro_mdav.json"

labels_of <- function(mx) {
  key <- do.call(paste, c(lapply(as.data.frame(mx), function(v) sprintf("%a", v)), sep = "|"))
  match(key, unique(key))
}
partition_hash <- function(labels) {
  h <- 0
  for (l in labels) h <- (h * 1000003 + l) %% 2147483647
  h
}
sse <- function(x, labels) {
  x <- as.matrix(x)
  s <- 0
  for (j in seq_len(ncol(x))) {
    s <- s + sum((x[, j] - ave(x[, j], labels))^2)
  }
  s
}
figures <- function(what, fun, x, mx, k, secs) {
  x <- as.data.frame(x); mx <- as.data.frame(mx)
  l <- labels_of(mx)
  sizes <- table(table(l))
  list(data = what, columns = names(x), k = k, method = fun, rows = nrow(x),
       seconds = secs, groups = length(unique(l)),
       group_sizes = setNames(as.list(as.integer(sizes)), names(sizes)),
       partition_hash = partition_hash(l), first_labels = head(l, 20),
       first_values = lapply(head(seq_len(nrow(mx)), 5), function(i) as.numeric(mx[i, ])),
       column_sums = as.numeric(colSums(mx)),
       within_group_sse = sse(x, l),
       il1s = dUtility(x, xm = mx, method = "IL1s"),
       drisk = dRisk(x, xm = mx))
}
timed <- function(expr) {
  t0 <- Sys.time(); v <- force(expr)
  list(value = v, secs = as.numeric(Sys.time() - t0, units = "secs"))
}

td <- read.csv(testdata_csv)
vars <- c("income", "expend", "savings")
ad <- read.csv(adult_csv, sep = ";", strip.white = TRUE, check.names = FALSE)
age <- data.frame(age = as.numeric(ad$age))
runs <- list()
for (k in c(3, 5)) {
  r <- timed(microaggregation(td[, vars], variables = vars, method = "mdav", aggr = k)$mx)
  runs[[length(runs) + 1]] <- figures("testdata", "microaggregation(method = 'mdav')",
                                      td[, vars], r$value, k, r$secs)
  r <- timed(microaggregation(td[, c(vars, "urbrur")], variables = vars, method = "mdav",
                              aggr = k, strata_variables = "urbrur")$mx)
  runs[[length(runs) + 1]] <- figures("testdata", "microaggregation(method = 'mdav', strata_variables = 'urbrur')",
                                      td[, vars], r$value, k, r$secs)
  r <- timed(sdcMicro:::mdav(age, variables = "age", K = k))
  runs[[length(runs) + 1]] <- figures("adult", "sdcMicro:::mdav", age, r$value, k, r$secs)
  r <- timed(microaggregation(age, variables = "age", method = "mdav", aggr = k)$mx)
  runs[[length(runs) + 1]] <- figures("adult", "microaggregation(method = 'mdav'), one variable: mafast",
                                      age, r$value, k, r$secs)
  r <- timed(argus_microaggregation(age, k = k, useOptimal = TRUE)$microaggregated)
  runs[[length(runs) + 1]] <- figures("adult", "argus_microaggregation(useOptimal = TRUE)",
                                      age, r$value, k, r$secs)
}
out <- list(tool = paste("sdcMicro", packageVersion("sdcMicro")),
            r = R.version.string,
            generated_by = "bench/sdcmicro/microaggregation.R",
            drisk_k = 0.05, runs = runs)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), out_json)
