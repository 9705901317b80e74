#!/usr/bin/env bash
# Stops what up.sh started.
for p in service stub redis; do f=${COUNTS_OUT:-/tmp/counts}/up/$p.pid; [ -f $f ] && kill $(cat $f) 2>/dev/null; done; sleep 1
