# Top and bottom coding and rounding on sdcMicro's testdata (issue 33):
# the thresholds R's quantile() gives (type 7, the default), the cells
# sdcMicro's topBotCoding changes at them, and the cells R's round()
# changes, for `anonlab anonymize --top-code / --bottom-code / --round`
# and crates/core/src/data/recode.rs's test `testdata_agrees_with_sdcmicro`.
# Usage (from the repository root):
#   R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/recode.R
suppressPackageStartupMessages(library(sdcMicro))
d <- read.csv("tests/data/sdcmicro/testdata.csv")
changed <- function(x, y) sum(x != y, na.rm = TRUE)
coding <- function(col, p, kind) {
  x <- d[[col]]
  q <- if (is.na(p)) NA else quantile(x, p, na.rm = TRUE)
  list(threshold = q, changed = changed(topBotCoding(x, value = q, replacement = q, kind = kind), x))
}
for (s in list(list("age", 0.99, "top"), list("income", 0.95, "top"),
               list("income", 0.05, "bottom"), list("expend", 0.99, "top"))) {
  r <- coding(s[[1]], s[[2]], s[[3]])
  cat(sprintf("%s-code %s=q%s: threshold %s, %d cells changed\n", s[[3]], s[[1]], s[[2]],
              format(r$threshold, digits = 17), r$changed))
}
for (s in list(list("age", 90, "top"), list("age", 10, "bottom"))) {
  x <- d[[s[[1]]]]
  cat(sprintf("%s-code %s=%s: %d cells changed\n", s[[3]], s[[1]], s[[2]],
              changed(topBotCoding(x, value = s[[2]], replacement = s[[2]], kind = s[[3]]), x)))
}
for (s in list(list("age", 5), list("age", 10), list("income", 1e6))) {
  x <- d[[s[[1]]]]
  y <- round(x / s[[2]]) * s[[2]]
  cat(sprintf("round %s=%s: %d cells changed, sum %s\n", s[[1]], format(s[[2]], scientific = FALSE),
              changed(y, x), format(sum(y), digits = 17)))
}
