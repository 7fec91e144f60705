# sdcMicro's own risk of files anonlab published by local suppression to a
# risk threshold (issue 33): measure_risk on each file, `*` read as NA (the
# cell sdcMicro's localSuppression leaves), with the weights and household
# column, and sdcMicro's own threshold method, localSupp(threshold, keyVar),
# on the same input for comparison. Usage (from the repository root):
#   bench/sdcmicro/risk_threshold.sh   (writes the files, then runs this)
#   R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/risk_threshold.R FILE...
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
keys <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
out <- list()
for (f in commandArgs(trailingOnly = TRUE)) {
  d <- read.csv(f, na.strings = c("*", ""), stringsAsFactors = FALSE)
  for (k in keys) d[[k]] <- as.factor(d[[k]])
  r <- measure_risk(d, keyVars = keys, w = "sampling_weight", hid = "ori_hid")
  out[[basename(f)]] <- list(
    na_cells = sum(is.na(d[, keys])),
    max_individual = max(r$Res[, "risk"]),
    max_household = max(r$Res[, "hier_risk"]))
}
# sdcMicro's threshold method on the original: blank one key (relat, the
# one with the most categories, where anonlab suppresses most) in every
# record above the threshold, once; with hhId its risk is the household's.
data(testdata)
for (hh in c(FALSE, TRUE)) for (t in c(0.01, 0.02)) {
  sdc <- if (hh) createSdcObj(testdata, keyVars = keys, w = "sampling_weight", hhId = "ori_hid")
         else createSdcObj(testdata, keyVars = keys, w = "sampling_weight")
  t0 <- Sys.time()
  sdc <- localSupp(sdc, threshold = t, keyVar = "relat")
  secs <- as.numeric(Sys.time() - t0, units = "secs")
  m <- get.sdcMicroObj(sdc, "risk")$individual
  out[[paste0("sdcMicro_localSupp_", t, if (hh) "_household" else "")]] <- list(
    new_cells = get.sdcMicroObj(sdc, "localSuppression")$newSupps,
    max_individual = max(m[, "risk"]),
    above_individual = sum(m[, "risk"] > t),
    max_household = if (hh) max(m[, "hier_risk"]) else NA,
    above_household = if (hh) sum(m[, "hier_risk"] > t) else NA,
    seconds = secs)
}
cat(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), "\n")
