#!/bin/bash
# Per-thread CPU time, runnable wait and slices of process <pid> over <seconds>, from /proc/<pid>/task/*/schedstat
# (threads with more than 1 ms on CPU):  bash bench/probes/schedstat.sh <pid> <seconds>
pid=$1; secs=$2
snap() { for t in /proc/$pid/task/*; do echo "$(basename $t) $(cat $t/comm | tr ' ' _) $(cat $t/schedstat)"; done; }
snap > /tmp/ss1; sleep $secs; snap > /tmp/ss2
join <(sort /tmp/ss1) <(sort /tmp/ss2) | awk '{run=($7-$3)/1e6; wait=($8-$4)/1e6; sl=$9-$5; if (run>1) printf "%-8s %-18s run %8.1f ms  wait %8.1f ms  slices %6d\n",$1,$2,run,wait,sl}'
