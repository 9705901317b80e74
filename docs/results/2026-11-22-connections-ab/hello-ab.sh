#!/bin/bash
# usage: hello-ab.sh ROUNDS conf ; conf lines: name|module|main|jvm opts|args|scrape(0/1)
# /hello at wrk -t2 -c100: warm-up 6 x 5 s wrk runs, then 20 s measured; JVM CPU from /proc
ROOT=/work/main
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
FLAGS="--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
for r in $(seq 1 $1); do
 while IFS='|' read -r name module main jopts sargs scrape; do
  [ -z "$name" ] && continue
  CP="$ROOT/$module/target/classes:$(cat $ROOT/$module/target/runtime-classpath.txt)"
  rm -f /tmp/ab/port
  $JAVA $FLAGS -Xss512k $jopts -cp "$CP" $main --port 0 --port-file /tmp/ab/port $sargs > /tmp/ab/svc-$name.log 2>&1 &
  pid=$!
  for i in $(seq 1 150); do [ -s /tmp/ab/port ] && break; sleep 0.2; done
  P=$(cat /tmp/ab/port)
  for w in 1 2 3 4 5 6; do wrk -t2 -c100 -d5s http://127.0.0.1:$P/hello > /dev/null 2>&1; done
  t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  wrk -t2 -c100 -d20s --latency http://127.0.0.1:$P/hello > /tmp/ab/wrk-h-$name-$r.txt 2>&1 &
  wp=$!
  if [ "$scrape" = 1 ]; then ( while kill -0 $wp 2>/dev/null; do curl -s -o /dev/null http://127.0.0.1:$P/metrics; sleep 0.5; done ) & fi
  wait $wp
  t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  kill $pid; wait $pid 2>/dev/null
  echo "r$r $name rps=$(awk '/Requests\/sec/ {print $2}' /tmp/ab/wrk-h-$name-$r.txt) p99=$(awk '$1=="99%" {print $2}' /tmp/ab/wrk-h-$name-$r.txt) cpu=$(echo "scale=2; ($t1-$t0)/100/20" | bc)"
 done < $2
done
