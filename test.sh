#!/bin/sh
# Every test: install what is missing, build with ASan+UBSan and -Werror,
# run the unit and regress tests, then build the fuzz targets with clang
# and run each for a short, bounded time.
set -eu
cd "$(dirname "$0")"

./scripts/deps.sh
cmake -S . -B build-asan -DSANITIZE=ON -DWERROR=ON \
    -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j "$(nproc)" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j 2)

CC=clang cmake -S . -B build-fuzz -DFUZZ=ON -DWERROR=ON >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
(cd build-fuzz && ctest --output-on-failure)
