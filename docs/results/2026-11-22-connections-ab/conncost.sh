#!/bin/bash
# usage: conncost.sh NAME "jvm opts" "service args" [jfr]
# starts the service, warms it (wrk c1000 20s async 100ms), then 5 storms of 1000 connections (one request each)
NAME=$1; JOPTS=$2; SARGS=$3; JFR=$4
ROOT=/work/main
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
CP="$ROOT/service/target/classes:$(cat $ROOT/service/target/runtime-classpath.txt)"
FLAGS="--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
rm -f /tmp/ab/port
$JAVA $FLAGS -Xss512k $JOPTS -cp "$CP" bulkhead.service.Main --port 0 --port-file /tmp/ab/port $SARGS > /tmp/ab/svc-$NAME.log 2>&1 &
pid=$!
for i in $(seq 1 150); do [ -s /tmp/ab/port ] && break; sleep 0.2; done
P=$(cat /tmp/ab/port)
wrk -t2 -c1000 -d20s http://127.0.0.1:$P/work/async?ms=100 | grep Requests/sec
[ -n "$JFR" ] && /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid JFR.start name=s settings=profile filename=/tmp/ab/$NAME.jfr >/dev/null
python3 /tmp/ab/storm.py $P $pid 1000 ${ROUNDS:-5} /hello
[ -n "$JFR" ] && /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid JFR.stop name=s >/dev/null
echo "threads: $(ls /proc/$pid/task | wc -l)"
kill $pid; wait $pid 2>/dev/null
