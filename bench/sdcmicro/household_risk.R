# sdcMicro's measure_risk on its own testdata, with weights and households,
# in the shape of tests/golden/sdcmicro_testdata_household.json so that
# bench/sdcmicro/compare_household.py can hold the three side by side
# (sdcMicro, the golden script, anonlab). Usage (from the repository root):
#   R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/household_risk.R > sdc.json
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
data(testdata)
keysets <- list(
  measure_risk_example = c("urbrur", "roof", "walls", "water", "sex"),
  local_suppression_example = c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex"))
thresholds <- c("0.01", "0.05", "0.1", "0.2")
summ <- function(v) list(
  expected_reidentifications = sum(v), global_risk = sum(v) / length(v), max = max(v),
  sum_of_squares = sum(v * v),
  records_above = setNames(as.list(sapply(as.numeric(thresholds), function(t) sum(v > t))), thresholds),
  first_records = v[1:12])
out <- list()
for (name in names(keysets)) {
  t0 <- Sys.time()
  r <- measure_risk(testdata, keyVars = keysets[[name]], w = "sampling_weight", hid = "ori_hid")
  secs <- as.numeric(Sys.time() - t0, units = "secs")
  ind <- r$Res[, "risk"]; hier <- r$Res[, "hier_risk"]
  out[[name]] <- list(
    keys = keysets[[name]], seconds = secs,
    individual = summ(ind), household = summ(hier),
    global_risk_ER = r$global_risk_ER, hier_risk_ER = r$hier_risk_ER, hier_risk = r$hier_risk,
    per_record = list(risk = ind, hier_risk = hier))
}
cat(toJSON(list(sdcMicro = as.character(packageVersion("sdcMicro")), settings = out),
           digits = NA, auto_unbox = TRUE))
