# Issue 32's one rule for hidden cells beside sdcMicro: UCI Adult with the
# ages of people aged 60 and over hidden (NA to sdcMicro), the attacker's
# six attributes as key variables. sdcMicro's freqCalc (alpha = 1: a missing
# cell matches any value) is the rule anonlab applies everywhere; its
# alpha = 0 (missing is a value of its own) and suda2 (a missing cell is no
# item: it matches nothing) are printed to show the other readings.
# usage: R_LIBS=/tmp/sdc/Rlib Rscript bench/sdcmicro/hidden_uniques.R [ADULT_CSV]
suppressPackageStartupMessages(library(sdcMicro))
a <- commandArgs(trailingOnly = TRUE)
file <- if (length(a) >= 1) a[1] else "../shared/data/adult/adult.csv"
d <- read.csv(file, sep = ";", strip.white = TRUE, stringsAsFactors = TRUE)
names(d) <- gsub("[.-]", "_", names(d))
age <- as.numeric(as.character(d$age))
d$age <- factor(ifelse(age >= 60, NA, age))
kv <- c("sex", "age", "race", "marital_status", "education", "native_country")
cat("rows", nrow(d), " hidden ages", sum(is.na(d$age)), "\n")
t <- system.time(f1 <- freqCalc(d, keyVars = kv, alpha = 1))[["elapsed"]]
cat(sprintf("freqCalc alpha=1: sample uniques %d (%.3f s)\n", sum(f1$fk == 1), t))
f0 <- freqCalc(d, keyVars = kv, alpha = 0)
cat(sprintf("freqCalc alpha=0: sample uniques %d\n", sum(f0$fk == 1)))
t <- system.time(s <- suda2(d, variables = kv, missing = NA, DisFraction = 0.01,
                            original_scores = FALSE))[["elapsed"]]
cat(sprintf("suda2 (MSUs up to 6): records with an MSU %d, of which age hidden %d; DIS-SUDA mean %.6f max %.6f (%.3f s)\n",
            sum(s$score > 0), sum(s$score > 0 & is.na(d$age)), mean(s$disScore), max(s$disScore), t))
