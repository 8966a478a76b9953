# ns-2.35 reference run for XCP at high bandwidth-delay products
# (docs/validation.md, "XCP at high bandwidth-delay products"): a dumbbell
# r0 -> r1 with N Agent/TCP/Reno/XCP flows, each on its own edge links.
#
#   ns xcp_bdp.tcl N RATE_BPS DELAY_S QLIM EDGE_BPS EDGE_DELAY_S SPACING_S DUR_S WARM_S XCP_EDGES \
#      EDGE_QLIM TICK_S [SEED]
#
# Bottleneck RATE_BPS/DELAY_S with a QLIM-packet Queue/XCP both ways; edges
# EDGE_BPS/EDGE_DELAY_S with EDGE_QLIM packets (ns-2's default limit_ is
# 50), Queue/XCP too when XCP_EDGES is 1 (else DropTail); 1000-byte
# segments, Agent/TCP/Reno/XCP's own defaults otherwise (timestamps_ true,
# tcpTick_ TICK_S); flow i starts at i*SPACING_S. Prints one line: the
# bottleneck's bytes departed, its drops and the drops of the senders'
# access links, then each flow's timeouts (nrexmit_), all counted over
# [WARM_S, DUR_S].
foreach {N rate delay qlim erate edelay spacing dur warm xedges eqlim tick} [lrange $argv 0 11] {}
set ns [new Simulator]
# SEED: ns-2's default RNG, which draws only the XCP routers' first timer
# expiries here (xcpq.cc XCPQueue::setupTimers, Random::normal).
if {$argc > 12} { $defaultRNG seed [lindex $argv 12] }
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Agent/TCP set tcpTick_ $tick

proc link {a b bw d kind cap ql} {
    global ns
    $ns duplex-link $a $b $bw ${d}s $kind
    $ns queue-limit $a $b $ql
    $ns queue-limit $b $a $ql
    if {$kind == "XCP"} {
        foreach {x y} [list $a $b $b $a] { [[$ns link $x $y] queue] set-link-capacity $cap }
    }
}
set r0 [$ns node]
set r1 [$ns node]
link $r0 $r1 $rate $delay XCP $rate $qlim
set ekind [expr {$xedges ? "XCP" : "DropTail"}]
set qm [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    link $s($i) $r0 $erate $edelay $ekind $erate $eqlim
    link $r1 $d($i) $erate $edelay $ekind $erate $eqlim
    set em($i) [$ns monitor-queue $s($i) $r0 [open /dev/null w] 1.0]
    set tcp($i) [new Agent/TCP/Reno/XCP]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr $i * $spacing] "$ftp($i) start"
}
# The counts at the end of the warm-up, subtracted at the end.
proc edge_drops {} {
    global N em
    set ed 0
    for {set i 0} {$i < $N} {incr i} { incr ed [$em($i) set pdrops_] }
    return $ed
}
proc mark {} {
    global qm b0 d0 e0 N tcp to0
    set b0 [$qm set bdepartures_]
    set d0 [$qm set pdrops_]
    set e0 [edge_drops]
    for {set i 0} {$i < $N} {incr i} { set to0($i) [$tcp($i) set nrexmit_] }
}
proc finish {} {
    global qm b0 d0 e0 N tcp to0
    set to {}
    for {set i 0} {$i < $N} {incr i} { lappend to [expr [$tcp($i) set nrexmit_] - $to0($i)] }
    puts "[expr [$qm set bdepartures_] - $b0] [expr [$qm set pdrops_] - $d0] [expr [edge_drops] - $e0] $to"
    exit 0
}
$ns at $warm mark
$ns at $dur finish
$ns run
