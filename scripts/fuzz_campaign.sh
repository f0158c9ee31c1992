#!/bin/sh
# A fuzz campaign of FUZZ_TIME seconds (default 600) over tests/native/fuzz_targets.py under ASan+UBSan
# (scripts/fuzz_build.sh must have built .venv-fuzz; `make fuzz` does both). libFuzzer stops at
# the first crash, leak-free Python exception or timeout and writes the input to $WORK/crashes/;
# the campaign starts it again, with the corpus it grew, until the time is up. The log ($WORK/
# fuzz.log, or FUZZ_LOG) has libFuzzer's lines (execs, cov, ft); the summary at the end counts
# the runs, executions and crash files.
set -u
VENV=${FUZZ_VENV:-.venv-fuzz}
WORK=${FUZZ_WORK:-.fuzz}
TIME=${FUZZ_TIME:-600}
LOG=${FUZZ_LOG:-$WORK/fuzz.log}
mkdir -p "$WORK/corpus" "$WORK/seeds" "$WORK/crashes"
"$VENV/bin/python" scripts/fuzz_seeds.py --pages "${FUZZ_PAGES:-400}" "$WORK/seeds" >> "$LOG" 2>&1
ASAN_RT="$("$VENV/bin/python" -c 'import atheris, os; print(os.path.join(atheris.path(), "asan_with_fuzzer.so"))')"
# PYTHONMALLOC=malloc: every Python object from malloc, so ASan sees overruns of Python buffers
# too; no leak report (the interpreter keeps memory at exit by design)
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:handle_abort=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONMALLOC=malloc
end=$(( $(date +%s) + TIME ))
runs=0
while :; do
    left=$(( end - $(date +%s) ))
    [ "$left" -gt 5 ] || break
    runs=$((runs + 1))
    echo "== fuzz_campaign: run $runs, ${left}s left ($(date -u +%H:%M:%S))" >> "$LOG"
    LD_PRELOAD="$ASAN_RT" "$VENV/bin/python" scripts/fuzz_native.py "$WORK/corpus" "$WORK/seeds" \
        -max_total_time="$left" -max_len=65536 -timeout=60 -rss_limit_mb=6144 -print_final_stats=1 -report_slow_units=120 \
        -artifact_prefix="$WORK/crashes/" >> "$LOG" 2>&1
    echo "== fuzz_campaign: run $runs ended with status $?" >> "$LOG"
done
crashes=$(ls "$WORK/crashes" | grep -c "^crash-\|^timeout-\|^oom-\|^leak-")
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$LOG" | awk '{s += $2} END {print s + 0}')
last=$(grep -E '#[0-9]+.*cov: ' "$LOG" | tail -1)
echo "fuzz_campaign: $runs runs, $execs executions, $crashes files in $WORK/crashes; last status: $last" | tee -a "$LOG"
