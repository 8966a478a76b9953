# ns-2.35 reference run for ccsim's XCP (docs/validation.md):
# a dumbbell, N Agent/TCP/Reno/XCP flows through Queue/XCP bottlenecks.
#   ns xcp_dumbbell.tcl N DURATION TRACEFILE [SEED]
# Bottleneck 20 Mb/s, 10 ms; edges 100 Mb/s, 5 ms (RTT 40 ms); buffer 200
# packets; 1000-byte segments (1040 bytes on the wire); flow i starts at
# i * 0.5 / N s. The bottleneck's enqueue/dequeue/drop events go to TRACEFILE.
set N [lindex $argv 0]
set dur [lindex $argv 1]
set tracefile [lindex $argv 2]

set ns [new Simulator]
# Optional seed of ns-2's default RNG: it draws only the XCP routers' first
# timer expiries here (xcpq.cc XCPQueue::setupTimers, Random::normal).
if {$argc > 3} { $defaultRNG seed [lindex $argv 3] }
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Agent/TCP set timestamps_ true
Agent/TCP set tcpTick_ 0.0001

set r0 [$ns node]
set r1 [$ns node]
set bw 20e6
$ns duplex-link $r0 $r1 20Mb 10ms XCP
$ns queue-limit $r0 $r1 200
$ns queue-limit $r1 $r0 200
# Every Queue/XCP needs its capacity (ns-2 keeps it in bytes/s).
foreach {a b} [list $r0 $r1 $r1 $r0] {
    set q [[$ns link $a $b] queue]
    $q set-link-capacity $bw
}
set tf [open $tracefile w]
$ns trace-queue $r0 $r1 $tf

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 100Mb 5ms DropTail
    $ns duplex-link $r1 $d($i) 100Mb 5ms DropTail
    $ns queue-limit $s($i) $r0 1000
    $ns queue-limit $r1 $d($i) 1000
    set tcp($i) [new Agent/TCP/Reno/XCP]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr $i * 0.5 / $N] "$ftp($i) start"
}
$ns at $dur "close $tf; exit 0"
$ns run
