#!/bin/bash
# usage: ab10k.sh ROUNDS conf : interleaved configs, seed 001's -c10000 on 1 s async work, 30 s warm-up + 60 s, scraping
for r in $(seq 1 $1); do
  while IFS='|' read -r name jopts sargs; do
    [ -z "$name" ] && continue
    SCRAPE=1 /tmp/ab/run.sh "$name-r$r" "$jopts" "$sargs" 30 60
  done < $2
done
