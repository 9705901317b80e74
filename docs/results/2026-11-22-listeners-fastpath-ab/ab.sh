#!/bin/bash
# usage: ab.sh ROUNDS WARM DUR "wrkargs" PATH config-file
# config file lines: name|jvm opts|service args
ROUNDS=$1; WARM=$2; DUR=$3; WRKARGS=$4; URLPATH=$5; CONF=$6
ROOT=/work/main
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
CP="$ROOT/service/target/classes:$(cat $ROOT/service/target/runtime-classpath.txt)"
FLAGS="--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
for r in $(seq 1 $ROUNDS); do
 while IFS='|' read -r name jopts sargs; do
  [ -z "$name" ] && continue
  rm -f /tmp/ab/port
  $JAVA $FLAGS -Xss512k $jopts -cp "$CP" bulkhead.service.Main --port 0 --port-file /tmp/ab/port $sargs > /tmp/ab/svc-$name.log 2>&1 &
  pid=$!
  for i in $(seq 1 100); do [ -s /tmp/ab/port ] && break; sleep 0.2; done
  P=$(cat /tmp/ab/port)
  wrk $WRKARGS -d${WARM}s http://127.0.0.1:$P$URLPATH > /dev/null 2>&1
  t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  wrk $WRKARGS -d${DUR}s --latency http://127.0.0.1:$P$URLPATH > /tmp/ab/wrk-$name-$r.txt 2>&1
  t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  rss=$(awk '/VmHWM/ {print $2/1024}' /proc/$pid/status)
  thr=$(ls /proc/$pid/task | wc -l)
  kill $pid; wait $pid 2>/dev/null
  rps=$(awk '/Requests\/sec/ {print $2}' /tmp/ab/wrk-$name-$r.txt)
  p50=$(awk '$1=="50%" {print $2}' /tmp/ab/wrk-$name-$r.txt)
  p99=$(awk '$1=="99%" {print $2}' /tmp/ab/wrk-$name-$r.txt)
  err=$(grep -o "Socket errors.*" /tmp/ab/wrk-$name-$r.txt)
  non2xx=$(grep -o "Non-2xx.*" /tmp/ab/wrk-$name-$r.txt)
  cpu=$(echo "scale=2; ($t1-$t0)/100/$DUR" | bc)
  echo "r$r $name rps=$rps p50=$p50 p99=$p99 cpu=$cpu threads=$thr rssMB=$rss $err $non2xx"
 done < $CONF
done
