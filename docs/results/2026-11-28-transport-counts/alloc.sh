#!/usr/bin/env bash
# Counts per request over a fixed load: see README.md. Run from a built checkout (./bulkhead build).
# usage: alloc.sh LABEL "service flags": bytes allocated per request by the service and the stub (JFR per-thread totals)
LABEL=$1; C=${3:-20}; D=${4:-10}
J=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin
OUT=${COUNTS_OUT:-/tmp/counts}/$LABEL; rm -rf $OUT; mkdir -p $OUT
$(dirname "$0")/up.sh "$2"
wrk -t2 -c$C -d20s --timeout 10s http://127.0.0.1:18080/customers/7 >$OUT/warm.txt 2>&1
SP=$(cat ${COUNTS_OUT:-/tmp/counts}/up/stub.pid); VP=$(cat ${COUNTS_OUT:-/tmp/counts}/up/service.pid)
for p in $SP $VP; do $J/jcmd $p JFR.start name=alloc settings=default filename=$OUT/$p.jfr >/dev/null; done
wrk -t2 -c$C -d${D}s --timeout 10s http://127.0.0.1:18080/customers/7 >$OUT/wrk.txt 2>&1
for p in $SP $VP; do $J/jcmd $p JFR.stop name=alloc >/dev/null; done
N=$(awk '/requests in/ {print $1}' $OUT/wrk.txt)
$(dirname "$0")/down.sh
per() { $J/jfr print --events jdk.ThreadAllocationStatistics $1 | awk '/allocated =/ {v=$3; gsub(/[^0-9.]/,"",v); u=$4; m=1; if (u ~ /^kB/) m=1024; if (u ~ /^MB/) m=1048576; if (u ~ /^GB/) m=1073741824; a=v*m} /javaThreadId =/ {t=$0; sub(/.*javaThreadId = /,"",t); if (!(t in first)) first[t]=a; last[t]=a} END {s=0; for (t in last) s+=last[t]-first[t]; printf "%.0f", s}'; }
echo "$LABEL: $N requests; bytes allocated per request: stub $(( $(per $OUT/$SP.jfr)/N )), service $(( $(per $OUT/$VP.jfr)/N )) $(grep Non-2xx $OUT/wrk.txt)"
