# Shared by the bench scripts (sourced, not run): the section header, the
# machine description every BENCHMARKS.md figure is recorded with, and
# installing the measuring tools when missing.

# The Adult quasi-identifiers every script measures with, and the binary.
QI=sex,age,race,marital-status,education,native-country,workclass,occupation
BIN=target/release/anonlab

section() { printf '\n## %s\n\n' "$*"; }

# `cargo bench --bench NAME` under its section, cargo's own lines left out;
# the bench writes the census file (CENSUS), which the whole-process runs
# after it read.
in_process_bench() {
    section "$2: cargo bench --bench $1"
    cargo bench --bench "$1" 2>&1 | grep -v -E '^\s*(Compiling|Finished|Running)'
    test -f "$CENSUS" || { echo "the bench did not write $CENSUS" >&2; exit 1; }
}

machine() {
    section "Machine"
    echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit:    $(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-? (not a git checkout; set COMMIT)}")"
    echo "nproc:     $(nproc)"
    echo "cpu:       $(lscpu | grep 'Model name' | sed 's/Model name: *//')"
    echo "memory:    $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
    echo "rustc:     $(rustc --version)"
    echo "load avg:  $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews wall times)"
}

need_hyperfine() {
    if ! command -v hyperfine >/dev/null; then
        section "Installing hyperfine"
        apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null
    fi
}

# How every script begins: a scratch directory $TMP removed on exit, the
# machine section and the release build.
start() {
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    machine
    section "Build"
    cargo build --release 2>&1 | tail -1
}
