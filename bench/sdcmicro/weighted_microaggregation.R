# Issue 34: microaggregation with sampling weights. sdcMicro's MDAV forms
# its groups without weights (its micro_mdav passes weights = NULL) and its
# other methods aggregate a group by stats::weighted.mean; anonlab forms
# the MDAV groups the same way and aggregates them by the weighted mean.
# This script takes sdcMicro's own MDAV groups of testdata's income,
# expend and savings at k = 3 and 5 (read from its aggregated values, as
# microaggregation.R does), replaces each group's values by their
# weighted.mean with the weights household_weights (testdata's
# sampling_weight is 100 for every record, which would weight nothing),
# and writes sdcMicro's IL1s and dRisk of that file and its column sums.
#
# usage: R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/weighted_microaggregation.R \
#          [TESTDATA_CSV] [OUT_JSON]
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
a <- commandArgs(trailingOnly = TRUE)
testdata_csv <- if (length(a) >= 1) a[1] else "tests/data/sdcmicro/testdata.csv"
out_json <- if (length(a) >= 2) a[2] else "tests/golden/sdcmicro_weighted_mdav.json"

td <- read.csv(testdata_csv)
vars <- c("income", "expend", "savings")
w <- td$household_weights
runs <- list()
for (k in c(3, 5)) {
  mx <- microaggregation(td[, vars], variables = vars, method = "mdav", aggr = k)$mx
  key <- do.call(paste, c(lapply(as.data.frame(mx), function(v) sprintf("%a", v)), sep = "|"))
  g <- match(key, unique(key))
  wx <- as.data.frame(lapply(td[, vars], function(col) {
    means <- sapply(split(seq_along(col), g), function(i) weighted.mean(col[i], w[i]))
    as.numeric(means[as.character(g)])
  }))
  runs[[length(runs) + 1]] <- list(
    k = k, weights = "household_weights", groups = length(unique(g)),
    column_sums = as.numeric(colSums(wx)),
    il1s = dUtility(td[, vars], xm = wx, method = "IL1s"),
    drisk = dRisk(td[, vars], xm = wx))
}
doc <- list(sdcmicro = as.character(packageVersion("sdcMicro")),
            data = "testdata", columns = vars, runs = runs)
writeLines(toJSON(doc, auto_unbox = TRUE, digits = NA, pretty = TRUE), out_json)
cat("wrote", out_json, "\n")
