# ns-2.35 reference run for ccsim's XCP on the paced-XCP paper's networks
# (docs/validation.md, "XCP"): a chain of Queue/XCP links
# r0 -> r1 -> ... -> rN (N = 1: the dumbbell, N = 3: the parking lot), each
# flow on its own two edge links, Agent/TCP/Reno/XCP senders with
# Agent/TCPSink/XCPSink and FTP.
#
#   ns xcp_chain.tcl PARAMS FLOWS TRACE [SEED]
#
# PARAMS: one line "n_links rate_bps delay_s queue_bytes capacity_bps
#   edge_rate_bps edge_delay_default_s edge_queue_bytes packet_size ack_size
#   duration"; FLOWS: one line per flow "fid dir first last edge_delay_s
#   start_s" (dir 0 forward r_first -> r_last+1, 1 reverse); both written by
#   validation/xcp_compare.py from the ccsim scenario, so the two simulators
#   see the same draws. TRACE gets trace-queue's + - d r lines of every
#   middle link, both directions (a pipe to the parser, never a file).
set params [open [lindex $argv 0] r]
gets $params line
close $params
foreach {nl rate delay qbytes cap erate edel eqbytes psize asize dur} $line {}

set ns [new Simulator]
# Optional seed of ns-2's default RNG: it draws only the XCP routers' first
# timer expiries here (xcpq.cc XCPQueue::setupTimers, Random::normal).
if {$argc > 3} { $defaultRNG seed [lindex $argv 3] }
Agent/TCP set packetSize_ $psize
Agent/TCPSink set packetSize_ $asize
Agent/TCP set window_ 10000000
Agent/TCP set timestamps_ true
Agent/TCP set tcpTick_ 0.0001

# A byte-limited drop-tail queue of qbytes (DropTail's byte mode:
# limit_ * mean_pktsize_ bytes).
proc bytelimit {q bytes} {
    $q set queue_in_bytes_ true
    $q set mean_pktsize_ 1
    $q set limit_ $bytes
}

for {set i 0} {$i <= $nl} {incr i} { set r($i) [$ns node] }
set tf [open [lindex $argv 2] w]
for {set i 0} {$i < $nl} {incr i} {
    set j [expr $i + 1]
    $ns duplex-link $r($i) $r($j) $rate ${delay}s XCP
    foreach {a b} [list $r($i) $r($j) $r($j) $r($i)] {
        set q [[$ns link $a $b] queue]
        # Queue/XCP's XCP sub-queue is vq_(0), a Queue/DropTail/XCPQ.
        bytelimit [$q set vq_(0)] $qbytes
        $q set-link-capacity $cap
        $ns trace-queue $a $b $tf
    }
}

set f [open [lindex $argv 1] r]
while {[gets $f line] >= 0} {
    foreach {fid dir first last edel start} $line {}
    set s($fid) [$ns node]
    set d($fid) [$ns node]
    if {$dir == 0} {
        set in $r($first)
        set out $r([expr $last + 1])
    } else {
        set in $r([expr $last + 1])
        set out $r($first)
    }
    $ns duplex-link $s($fid) $in $erate ${edel}s DropTail
    $ns duplex-link $out $d($fid) $erate ${edel}s DropTail
    foreach {a b} [list $s($fid) $in $in $s($fid) $out $d($fid) $d($fid) $out] {
        bytelimit [[$ns link $a $b] queue] $eqbytes
    }
    set tcp($fid) [new Agent/TCP/Reno/XCP]
    $tcp($fid) set fid_ $fid
    set sink($fid) [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s($fid) $tcp($fid)
    $ns attach-agent $d($fid) $sink($fid)
    $ns connect $tcp($fid) $sink($fid)
    set ftp($fid) [new Application/FTP]
    $ftp($fid) attach-agent $tcp($fid)
    $ns at $start "$ftp($fid) start"
}
close $f
$ns at $dur "close $tf; exit 0"
$ns run
