#!/bin/bash
# The kernel settings the project's packetdrill scripts assume: Linux's
# defaults for what they test (RACK-TLP on, F-RTO, SACK, CUBIC), with
# timestamps off so that RTT samples follow Karn's rule as ccsim replays.
sysctl -q net.ipv4.tcp_timestamps=0
sysctl -q net.ipv4.tcp_sack=1
sysctl -q net.ipv4.tcp_dsack=1
sysctl -q net.ipv4.tcp_frto=2
sysctl -q net.ipv4.tcp_reordering=3
sysctl -q net.ipv4.tcp_congestion_control=cubic
sysctl -q net.ipv4.tcp_slow_start_after_idle=0
sysctl -q net.ipv4.tcp_early_retrans=4 net.ipv4.tcp_recovery=1
sysctl -q net.ipv4.tcp_tso_win_divisor=3
sysctl -q net.ipv4.tcp_rmem="4096 540000 15728640"
sysctl -q net.ipv4.tcp_wmem="4096 262144 4194304"
