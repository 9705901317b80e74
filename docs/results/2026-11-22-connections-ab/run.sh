#!/bin/bash
# usage: c10k.sh NAME "jvm opts" "service args" WARM DUR
NAME=$1; JOPTS=$2; SARGS=$3; WARM=${4:-20}; DUR=${5:-30}
ROOT=/work/main
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
CP="$ROOT/service/target/classes:$(cat $ROOT/service/target/runtime-classpath.txt)"
FLAGS="--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
rm -f /tmp/ab/port
$JAVA $FLAGS -Xss512k -XX:NativeMemoryTracking=summary $JOPTS -cp "$CP" bulkhead.service.Main --port 0 --port-file /tmp/ab/port $SARGS > /tmp/ab/svc-$NAME.log 2>&1 &
pid=$!
for i in $(seq 1 150); do [ -s /tmp/ab/port ] && break; sleep 0.2; done
P=$(cat /tmp/ab/port)
for w in $(seq 1 $((WARM/5))); do wrk -t${T:-6} -c${C:-10000} -d5s --timeout 10s http://127.0.0.1:$P${URLP:-/work/async?ms=1000} > /tmp/ab/warm.txt 2>&1; done
t0=$(awk '{print $14+$15}' /proc/$pid/stat)
wrk -t${T:-6} -c${C:-10000} -d${DUR}s --timeout 10s --latency http://127.0.0.1:$P${URLP:-/work/async?ms=1000} > /tmp/ab/wrk-$NAME.txt 2>&1 &
wp=$!
if [ -n "$SCRAPE" ]; then ( while kill -0 $wp 2>/dev/null; do curl -s -o /dev/null -w "%{time_total}\n" http://127.0.0.1:$P/metrics >> /tmp/ab/scrape-$NAME.txt; sleep 0.5; done ) & fi
sleep $((DUR/2))
ls /proc/$pid/task | while read t; do cat /proc/$pid/task/$t/comm; done | sed 's/[-#]*[0-9]*$//' | sort | uniq -c | sort -rn > /tmp/ab/threads-$NAME.txt
$JCMD $pid VM.native_memory summary > /tmp/ab/nmt-$NAME.txt 2>&1
$JCMD $pid GC.heap_info > /tmp/ab/heap-$NAME.txt 2>&1; [ -n "$HISTO" ] && $JCMD $pid GC.class_histogram > /tmp/ab/histo-$NAME.txt 2>&1
wait $wp
t1=$(awk '{print $14+$15}' /proc/$pid/stat)
rss=$(awk '/VmHWM/ {print $2/1024}' /proc/$pid/status)
thr=$(ls /proc/$pid/task | wc -l)
kill $pid; wait $pid 2>/dev/null
rps=$(awk '/Requests\/sec/ {print $2}' /tmp/ab/wrk-$NAME.txt)
p50=$(awk '$1=="50%" {print $2}' /tmp/ab/wrk-$NAME.txt); p99=$(awk '$1=="99%" {print $2}' /tmp/ab/wrk-$NAME.txt)
err=$(grep -o "Socket errors.*" /tmp/ab/wrk-$NAME.txt); non2xx=$(grep -o "Non-2xx.*" /tmp/ab/wrk-$NAME.txt)
echo "$NAME rps=$rps p50=$p50 p99=$p99 cpu=$(echo "scale=2; ($t1-$t0)/100/$DUR" | bc) threads=$thr rssHWM=$rss $err $non2xx"
