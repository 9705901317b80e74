#!/bin/bash
# per measured wrk run: the stub's and the service's read/write syscalls and context switches over 20 s
n=0; end=$((SECONDS+600))
snap() { local p=$1; local r w c; r=$(awk '/syscr/{print $2}' /proc/$p/io); w=$(awk '/syscw/{print $2}' /proc/$p/io);
  c=$(cat /proc/$p/task/*/status 2>/dev/null | awk '/voluntary_ctxt_switches/{s+=$2} END{print s}'); echo "$r $w $c"; }
while [ $SECONDS -lt $end ] && [ $n -lt 2 ]; do
  if pgrep -f "wrk .*-d40s" >/dev/null; then
    n=$((n+1)); stub=$(pgrep -f "bulkhead.stub.Main" | head -1); svc=$(pgrep -f "bulkhead.service.Main" | head -1)
    sleep 5; a=$(snap $stub); b=$(snap $svc); sleep 20; c=$(snap $stub); d=$(snap $svc)
    echo "run $n stub: $a -> $c ; service: $b -> $d" >> io.log
    while pgrep -f "wrk .*-d40s" >/dev/null; do sleep 1; done
  fi
  sleep 1
done
