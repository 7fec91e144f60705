# One setting of sdcMicro's localSuppression, as one JSON line: the
# suppressions it makes per key variable and in all, whether its result is
# k-anonymous under its own convention (freqCalc, alpha = 1: a missing cell
# matches any value), and its time. bench/sdcmicro/run.sh runs it beside
# anonlab on the same files.
#
# usage: Rscript local_suppression.R FILE SEP KEYS K IMPORTANCE [TIMEOUT_S]
#   KEYS        comma-separated key variables, as the file's header names them
#   IMPORTANCE  "default" (sdcMicro ranks by number of categories) or a
#               comma-separated vector of ranks, 1 = most important
# Key columns are read as factors: sdcMicro turns character key columns
# into missing values silently. Names with '-' are renamed for its formula
# building and reported under the file's names.
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
a <- commandArgs(trailingOnly = TRUE)
file <- a[1]; sep <- a[2]; keys <- strsplit(a[3], ",")[[1]]; k <- as.integer(a[4])
importance <- if (a[5] == "default") NULL else as.integer(strsplit(a[5], ",")[[1]])
limit <- if (length(a) >= 6) as.numeric(a[6]) else Inf
d <- read.csv(file, sep = sep, strip.white = TRUE, check.names = FALSE,
              colClasses = "character", na.strings = character(0))
safe <- gsub("[^A-Za-z0-9_]", "_", keys)
x <- data.frame(lapply(d[, keys, drop = FALSE], factor))
names(x) <- safe
setTimeLimit(elapsed = limit, transient = TRUE)
t0 <- Sys.time()
res <- tryCatch(localSuppression(x, keyVars = safe, k = k, importance = importance),
                error = function(e) e)
secs <- as.numeric(Sys.time() - t0, units = "secs")
setTimeLimit(elapsed = Inf)
out <- list(tool = paste("sdcMicro", packageVersion("sdcMicro")), file = basename(file),
            keys = keys, k = k, importance = if (is.null(importance)) "default" else importance,
            seconds = secs)
if (inherits(res, "error")) {
  out$stopped <- conditionMessage(res)
} else {
  supps <- as.numeric(res$supps[1, safe])
  out$suppressed <- setNames(as.list(supps), keys)
  out$total <- sum(supps)
  out$importance_used <- res$importance
  f <- freqCalc(res$xAnon, keyVars = safe, alpha = 1)
  out$k_anonymous <- all(f$fk >= k)
  out$min_fk <- min(f$fk)
}
cat(toJSON(out, auto_unbox = TRUE, digits = NA), "\n")
