# Issue 34: sdcMicro 5.8.1's MDAV at k = 3 on the 1M x 3 file of
# benches/microaggregation.rs (target/bench-data/mdav-1000000.csv:
# income, expend, savings; the bench writes it), timed beside anonlab's.
# sdcMicro's Mdav.cpp is O(n^2/k): it is stopped after LIMIT seconds
# (default 900) by the caller's `timeout`, and the script prints the time
# of each phase as it goes so a stopped run still says how far it got.
# A smaller run (the first 20,000 and 100,000 rows) gives the scaling.
#
# usage: R_LIBS=/tmp/sdc/Rlib timeout 900 Rscript bench/sdcmicro/mdav_1m.R \
#          [CSV]
suppressPackageStartupMessages(library(sdcMicro))
a <- commandArgs(trailingOnly = TRUE)
csv <- if (length(a) >= 1) a[1] else "target/bench-data/mdav-1000000.csv"
t0 <- proc.time()
x <- read.csv(csv)
cat(sprintf("read %d rows: %.1f s\n", nrow(x), (proc.time() - t0)[["elapsed"]]))
for (n in c(20000, 100000, nrow(x))) {
  d <- x[seq_len(n), c("income", "expend", "savings")]
  t <- system.time(invisible(sdcMicro:::mdav(d, K = 3)))
  cat(sprintf("sdcMicro mdav K=3, %d x 3: elapsed %.2f s, user %.2f s\n",
              n, t[["elapsed"]], t[["user.self"]]))
  flush(stdout())
}
