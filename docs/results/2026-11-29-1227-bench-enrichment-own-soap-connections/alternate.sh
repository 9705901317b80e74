#!/bin/bash
# Alternates main and the conns43 tree, one round each, three times: the same case close in time.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for i in 1 2 3; do
  (cd /work/main && ./bulkhead bench enrichment --only non-blocking-2000 --servers bulkhead --rounds 1 --out /work/runs/conns43-main-$i)
  (cd /work/wt/transport && ./bulkhead bench enrichment --only non-blocking-2000 --servers bulkhead --rounds 1 --out /work/runs/conns43-cut-$i)
done
