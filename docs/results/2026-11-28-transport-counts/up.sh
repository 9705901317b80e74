#!/usr/bin/env bash
# usage: up.sh "service flags": redis-server, the stub (fixed:100, or $LATENCY) and the service on 16379, 18089, 18080
W=${BULKHEAD_ROOT:-$(git rev-parse --show-toplevel)}
J=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
FLAGS="--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
OUT=${COUNTS_OUT:-/tmp/counts}/up; rm -rf $OUT; mkdir -p $OUT
redis-server --port 16379 --save "" --appendonly no --bind 127.0.0.1 >$OUT/redis.log 2>&1 & echo $! > $OUT/redis.pid
$J $FLAGS -Xmx512m -XX:+ExitOnOutOfMemoryError -cp $W/stub/target/classes:$(cat $W/stub/target/runtime-classpath.txt) bulkhead.stub.Main --port 18089 --latency ${LATENCY:-fixed:100} >$OUT/stub.log 2>&1 & echo $! > $OUT/stub.pid
sleep 3
$J $FLAGS -Xmx${HEAP:-2g} ${SVC_JVM:-} -XX:+ExitOnOutOfMemoryError -cp $W/service/target/classes:$(cat $W/service/target/runtime-classpath.txt) bulkhead.service.Main --port 18080 --soap-endpoint http://127.0.0.1:18089/soap --redis-uri redis://127.0.0.1:16379 $1 >$OUT/service.log 2>&1 & echo $! > $OUT/service.pid
for i in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:18080/health && break; sleep 0.5; done
