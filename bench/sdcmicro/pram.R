# Issue 34, part "PRAM": sdcMicro's pram beside anonlab's. Writes one JSON
# document (no per-row data) that tests/pram.rs compares anonlab with:
#
# - per variable (testdata's roof, walls, water, electcon, relat; Adult's
#   race, marital-status, education, workclass, occupation), one call of
#   pram(pd, alpha) after set.seed(seed): the levels, their frequencies,
#   the diagonal sdcMicro drew (the first random numbers pram() takes are
#   calcTransitionMatrix's runif(L, pd, 1), so set.seed(seed); runif(L, pd,
#   1) gives them), its transition matrix attr(, "pram_params")[[v]]$Rs,
#   the expected transition counts freq x Rs, sdcMicro's observed
#   transitions and its number of changes;
# - strata: testdata's roof within urbrur. sdcMicro keeps only the last
#   stratum's matrix, so each stratum's matrix is taken from pram() on
#   that stratum's records alone (the same calcTransitionMatrix on the same
#   records); the stratified call itself is run to count values published
#   as a category their stratum does not hold (sdcMicro issues #234, #358),
#   and so is #234's own example;
# - missing values: roof with its first 50 cells set to NA, to count
#   whether NA cells stay NA and whether any value becomes NA.
#
# A given CSV (the 1M-row synthetic census, target/bench-data/
# census-1000000.csv) is timed with pram() on its 7 categorical columns
# when given as the 4th argument: the time is printed, not written.
#
# usage: R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/pram.R \
#          [TESTDATA_CSV] [ADULT_CSV] [OUT_JSON] [CENSUS_CSV]
# defaults: tests/data/sdcmicro/testdata.csv, ../shared/data/adult/adult.csv,
# tests/golden/sdcmicro_pram.json (run from the repository root).
suppressPackageStartupMessages({ library(sdcMicro); library(jsonlite) })
a <- commandArgs(trailingOnly = TRUE)
testdata_csv <- if (length(a) >= 1) a[1] else "tests/data/sdcmicro/testdata.csv"
adult_csv <- if (length(a) >= 2) a[2] else "../shared/data/adult/adult.csv"
out_json <- if (length(a) >= 3) a[3] else "tests/golden/sdcmicro_pram.json"
census_csv <- if (length(a) >= 4) a[4] else NA

PD <- 0.8
ALPHA <- 0.5

# One variable (a factor) through pram() after set.seed(seed).
one <- function(data, name, x, seed, pd = PD, alpha = ALPHA) {
  L <- nlevels(x)
  set.seed(seed)
  pds <- runif(L, pd, 1)
  set.seed(seed)
  t0 <- Sys.time()
  res <- pram(x, pd = pd, alpha = alpha)
  secs <- as.numeric(Sys.time() - t0, units = "secs")
  Rs <- attr(res, "pram_params")[[1]]$Rs
  freq <- as.numeric(table(x))
  published <- res$x_pram
  obs <- table(factor(x, levels = levels(x)), factor(published, levels = levels(x)))
  list(data = data, variable = name, seed = seed, pd = pd, alpha = alpha,
       levels = levels(x), frequencies = freq, diagonal = pds,
       matrix = unname(lapply(seq_len(L), function(i) as.numeric(Rs[i, ]))),
       expected = unname(lapply(seq_len(L), function(i) freq[i] * as.numeric(Rs[i, ]))),
       observed = unname(lapply(seq_len(L), function(i) as.numeric(obs[i, ]))),
       changes = attr(res, "summary")$nrChanges, seconds = secs)
}


td <- read.csv(testdata_csv)
ad <- read.csv(adult_csv, sep = ";", strip.white = TRUE, check.names = FALSE)
runs <- list()
seed <- 100
for (v in c("roof", "walls", "water", "electcon", "relat")) {
  seed <- seed + 1
  runs[[length(runs) + 1]] <- one("testdata", v, factor(td[[v]]), seed)
}
for (v in c("race", "marital-status", "education", "workclass", "occupation")) {
  seed <- seed + 1
  runs[[length(runs) + 1]] <- one("adult", v, factor(ad[[v]]), seed)
}
# pd and alpha other than the defaults, on one variable.
runs[[length(runs) + 1]] <- one("testdata", "water", factor(td$water), 7, pd = 0.3, alpha = 0.9)

# Strata: roof within urbrur, one matrix per stratum.
roof <- factor(td$roof)
strata <- list()
for (s in sort(unique(td$urbrur))) {
  x <- roof[td$urbrur == s]
  r <- one("testdata", "roof", x, 200 + s)
  r$stratum <- as.character(s)
  strata[[length(strata) + 1]] <- r
}
count_left <- function(stratum, original, published) {
  key <- paste(stratum, original)
  held <- unique(paste(stratum, original))
  pub <- paste(stratum, published)
  sum(!is.na(published) & !(pub %in% held))
}
set.seed(300)
d <- data.frame(roof = roof, urbrur = factor(td$urbrur))
res <- pram(d, variables = "roof", strata_variables = "urbrur")
left_testdata <- count_left(d$urbrur, d$roof, res$roof_pram)
changes_testdata <- attr(res, "summary")$nrChanges
e234 <- data.frame(category = factor(c(rep("A", 90), rep("B", 90))),
                   subcategory = factor(c(rep(1:3, 30), rep(4:6, 30))))
set.seed(234)
r234 <- pram(e234, variables = "subcategory", strata_variables = "category")
left_234 <- count_left(e234$category, e234$subcategory, r234$subcategory_pram)

# Missing values.
roof_na <- roof
roof_na[1:50] <- NA
set.seed(400)
rn <- pram(roof_na)
na_kept <- sum(is.na(rn$x_pram[1:50]))
na_made <- sum(is.na(rn$x_pram[51:length(roof_na)]))

out <- list(tool = paste("sdcMicro", packageVersion("sdcMicro")),
            r = R.version.string,
            generated_by = "bench/sdcmicro/pram.R",
            runs = runs,
            strata = list(variable = "roof", stratum_variable = "urbrur", matrices = strata,
                          stratified_call = list(seed = 300, changes = changes_testdata,
                                                 published_outside_stratum = left_testdata),
                          issue_234 = list(seed = 234, records = nrow(e234),
                                           published_outside_stratum = left_234)),
            missing = list(variable = "roof", missing_cells = 50, seed = 400,
                           stayed_missing = na_kept, became_missing = na_made))
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), out_json)

if (!is.na(census_csv)) {
  t0 <- Sys.time()
  cs <- read.csv(census_csv, stringsAsFactors = TRUE)
  t_read <- as.numeric(Sys.time() - t0, units = "secs")
  vars <- c("sex", "race", "marital-status", "education", "native-country", "workclass", "occupation")
  names(cs) <- gsub(".", "-", names(cs), fixed = TRUE)
  cs <- cs[, vars]
  for (v in vars) cs[[v]] <- factor(cs[[v]])
  names(cs) <- make.names(vars)
  set.seed(1)
  t0 <- Sys.time()
  res <- pram(cs, variables = make.names(vars))
  t_pram <- as.numeric(Sys.time() - t0, units = "secs")
  cat(sprintf("census %d rows, %d variables: read %.2f s, pram %.2f s (sdcMicro %s)\n",
              nrow(cs), length(vars), t_read, t_pram, packageVersion("sdcMicro")))
  summ <- attr(res, "summary")
  summ$expected <- sapply(make.names(vars), function(v) {
    Rs <- attr(res, "pram_params")[[v]]$Rs
    f <- as.numeric(table(cs[[v]]))
    sum(f * (1 - diag(Rs)))
  })
  print(summ)
  cat(sprintf("changed cells %d (expected %.0f)\n", sum(summ$nrChanges), sum(summ$expected)))
}
