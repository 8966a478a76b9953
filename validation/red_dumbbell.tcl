# ns-2.35 reference run for ccsim's RED queue (docs/validation.md, "RED and ECN"):
# a dumbbell, N Agent/TCP/Newreno flows through a Queue/RED bottleneck.
#   ns red_dumbbell.tcl N DURATION BUFFER_PKTS MODE TRACEFILE [RATE_MBPS [SEED]]
# MODE: red (drops), ecn (setbit_, stock mark_p_ 0.1: ECT packets are
# dropped once p_b >= 0.1) or gwa (setbit_ and mark_p_ 2: every RED
# decision on an ECT packet is a mark, the GWA paper's ECN routers; ccsim's
# ecn_mark_above_max).
# Bottleneck RATE_MBPS (default 100) Mb/s, 10 ms; flow i's two edge links (100 Mb/s) have
# delay (rtt_i/2 - 10 ms)/2 with rtt_i = 40 + 36 i/(N-1) ms; 1000-byte
# segments (1050 on the wire: timestamps_ true adds ts_option_size_, 10
# bytes, in tcp.cc headersize(); the ccsim side sends 1040); flow i starts at i * 0.5 / N s. RED in
# packet mode, thresholds 1/12 and 3/12 of the buffer, max_p 0.1, not
# gentle (the GWA paper's settings), q_weight_ -1 (automatic).
# The bottleneck's + - d events go to TRACEFILE; each flow's highest
# cumulative ACK at DURATION/2 and DURATION goes to stdout, then per flow
# "stat i timeouts retransmitted-packets ecn-responses" (whole run).
set N [lindex $argv 0]
set dur [lindex $argv 1]
set buf [lindex $argv 2]
set mode [lindex $argv 3]
set tracefile [lindex $argv 4]
set rate 100
if {$argc > 5} { set rate [lindex $argv 5] }
if {$argc > 6} {
    global defaultRNG
    $defaultRNG seed [lindex $argv 6]
}

set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Agent/TCP set timestamps_ true
Agent/TCP set tcpTick_ 0.0001
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ [expr $buf / 12.0]
Queue/RED set maxthresh_ [expr 3.0 * $buf / 12.0]
Queue/RED set linterm_ 10
Queue/RED set gentle_ false
if {$mode != "red"} {
    Queue/RED set setbit_ true
    Agent/TCP set ecn_ 1
}
if {$mode == "gwa"} {
    Queue/RED set mark_p_ 2.0
}

set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 ${rate}Mb 10ms RED
$ns queue-limit $r0 $r1 $buf
$ns queue-limit $r1 $r0 $buf
set tf [open $tracefile w]
$ns trace-queue $r0 $r1 $tf

for {set i 0} {$i < $N} {incr i} {
    set rtt [expr 0.040 + 0.036 * $i / ($N - 1.0)]
    set e [expr ($rtt / 2.0 - 0.010) / 2.0]
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 100Mb ${e}s DropTail
    $ns duplex-link $r1 $d($i) 100Mb ${e}s DropTail
    $ns queue-limit $s($i) $r0 1000
    $ns queue-limit $r1 $d($i) 1000
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr $i * 0.5 / $N] "$ftp($i) start"
}
proc acks {tag} {
    global N tcp
    for {set i 0} {$i < $N} {incr i} {
        puts "ack $tag $i [$tcp($i) set ack_]"
    }
}
proc counters {tag} {
    global N tcp
    for {set i 0} {$i < $N} {incr i} {
        puts "stat $tag $i [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_] [$tcp($i) set necnresponses_]"
    }
}
$ns at [expr $dur / 2.0] "acks half; counters half"
$ns at $dur "acks end; counters end; close $tf; exit 0"
$ns run
