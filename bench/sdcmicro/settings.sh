# The local-suppression settings of issue 33, one per line:
#   NAME FILE SEP KEYS
# sourced by bench/sdcmicro/run.sh; paths relative to the repository root.
ADULT_DIR=${ADULT_DIR:-../shared/data/adult}
SETTINGS="
testdata-5 tests/data/sdcmicro/testdata.csv , urbrur,roof,walls,water,sex
testdata-7 tests/data/sdcmicro/testdata.csv , urbrur,roof,walls,water,electcon,relat,sex
free1-5 tests/data/sdcmicro/free1.csv , REGION,SEX,AGE,MARSTAT,KINDPERS
free1-8 tests/data/sdcmicro/free1.csv , REGION,SEX,AGE,MARSTAT,KINDPERS,NUMYOUNG,NUMOLD,EDUC1
adult-5 $ADULT_DIR/adult.csv ; sex,age,race,marital-status,education
adult-8 $ADULT_DIR/adult.csv ; sex,age,race,marital-status,education,native-country,workclass,occupation
"
# The given importance: the keys in the order listed, the first the most
# important (suppressed last); sdcMicro's ranks 1..m.
ranks() { seq -s, 1 "$(echo "$1" | tr ',' '\n' | wc -l)"; }
