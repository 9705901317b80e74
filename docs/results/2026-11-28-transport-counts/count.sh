#!/usr/bin/env bash
# Counts per request over a fixed load: see README.md. Run from a built checkout (./bulkhead build).
# usage: count.sh LABEL "service flags" CLIENTS SECONDS: syscalls per request of the stub and the service under wrk
LABEL=$1; C=${3:-20}; D=${4:-10}
OUT=${COUNTS_OUT:-/tmp/counts}/$LABEL; rm -rf $OUT; mkdir -p $OUT
$(dirname "$0")/up.sh "$2"
wrk -t2 -c$C -d20s --timeout 10s http://127.0.0.1:18080/customers/7 >$OUT/warm.txt 2>&1
SP=$(cat ${COUNTS_OUT:-/tmp/counts}/up/stub.pid); VP=$(cat ${COUNTS_OUT:-/tmp/counts}/up/service.pid)
strace -qq -c -f -p $SP -o $OUT/stub.strace 2>/dev/null & T1=$!
strace -qq -c -f -p $VP -o $OUT/service.strace 2>/dev/null & T2=$!
sleep 2
wrk -t2 -c$C -d${D}s --timeout 10s http://127.0.0.1:18080/customers/7 >$OUT/wrk.txt 2>&1
kill -INT $T1 $T2; wait $T1 $T2 2>/dev/null
cp ${COUNTS_OUT:-/tmp/counts}/up/*.log $OUT/
$(dirname "$0")/down.sh
N=$(awk '/requests in/ {print $1}' $OUT/wrk.txt)
echo "$LABEL: $N requests, $(grep -c . /dev/null) $(grep -E 'Non-2xx' $OUT/wrk.txt)"
for side in stub service; do
  awk -v n=$N -v side=$side 'NR>2 && $NF!="total" && $(NF-1) ~ /^[0-9]+$|^[a-z_0-9]+$/ { calls=($5 ~ /^[0-9]+$/ && $6 != "") ? $4 : $4; } NR>2 && /^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ { name=$NF; c=$4; per[name]=c/n } END { printf "%s per request:", side; for (k in per) if (per[k] >= 0.05) printf " %s %.2f", k, per[k]; printf "\n" }' $OUT/$side.strace
done
