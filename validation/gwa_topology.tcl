# ns-2.35 reference run of the GWA paper's DropTail, RED and ECN rows
# (Gerla et al., §6, Fig 3; docs/validation.md, "GWA paper rows").
#   ns gwa_topology.tcl PARAMS.tcl
# PARAMS.tcl (written by validation/gwa_compare.py) sets: N, dur, warm,
# rate_b and rate_a (bottleneck and other links, Mb/s), tauB, taur, tau(i)
# and start(i) (s), buf (packets the bottleneck may hold waiting), scheme
# (droptail | red | ecn), window (packets), telnet (0/1), interval (s),
# seed, tracefile.
#
# Fig 3: host s(i) -- tau(i) -- r0 == tauB bottleneck == r1 -- taur -- d(i);
# every host runs one FTP (Agent/TCP/Reno, Agent/TCPSink) and, with
# telnet 1, one Application/Telnet over its own Reno agent (one
# packetSize_ segment per Random::exponential() * interval_, apps/telnet.cc).
# Segments of 1000 bytes (MSS, paper §6) go out as 1040 bytes.
# Settings the paper gives: tcpTick_ 0.1 s; RED thresholds buf/12 and
# 3 buf/12, max_p 0.1 (linterm_ 10), drop with probability 1 above max_th
# (gentle_ false); ECN routers mark above max_th too (footnote 7:
# mark_p_ 2 with use_mark_p_, so red.cc marks every ECT packet it decides
# on). Settings it does not give, as the authors' 1999 ns-2 had them by
# default (ns-default.tcl's change notes): RED in packets (bytes_,
# queue_in_bytes_ false until 2004), q_weight_ 0.002 (until 12/2001),
# windowInit_ 1 (until 5/2001), timestamps_ false (one timed segment per
# RTT; ccsim runs the same estimator, rtt_estimator = "ns2"), so packets
# are 1040 bytes with no timestamp option.
# The first segment of each agent (seqno 0, syn_ true) goes out as a
# 40-byte SYN (tcp.cc output); ccsim runs the same start (syn = "ns2").
# The bottleneck r0 -> r1 is traced (+ - d) to tracefile. stdout: every
# agent's ack_ at warm and dur ("ack warm|end ftp|tel i ACK"), then
# "stat warm|end ftp|tel i nrexmit_ nrexmitpack_ ncwndcuts_ ncwndcuts1_
# necnresponses_" at warm and dur. Optional: eventfile (a path) writes every
# agent's event trace there (tcp.cc trace_event: "E time src dst TCP
# TIMEOUT|FAST_RETX|SLOW_START fid seqno cwnd", one TIMEOUT per expiry of
# the retransmission timer, whichever branch of `timeout` it takes), each
# agent with its own fid_ (2i for host i's FTP, 2i + 1 for its Telnet;
# fid_ changes nothing but trace lines). Optional: telfile (a path, with
# telnet 1) writes, for the Telnet delays (validation/gwa_telnet.py), each
# Telnet write ("w i time") and every packet arrival ('r') at each host
# d(i) (trace-queue of r1 -> d(i)), the Telnet agents with fid_ 2i + 1 and
# the FTPs 2i. Application/Telnet's writes cannot be observed from Tcl
# (its agent's `curseq_` is not a bound variable in ns-2.35), so with
# telfile the Telnets are driven by `telnext`/`telwrite` below, which do
# what apps/telnet.cc does in the same order: at start and after each
# write one draw of Random::exponential() * interval_ (-log(uniform) from
# the default stream, rng.h) and a write of one segment (TcpAgent::sendmsg
# and advanceby both add to curseq_ and call send_much). The write times
# agree with Application/Telnet's to the clock's last bits (a trace line
# may differ by 1 us in its sixth decimal), so a run with telfile is the
# same model, and goes its own way from the first tie such a bit decides,
# as another seed would (validation/gwa_telnet.py compares statistics
# over seeds, not runs).
source [lindex $argv 0]
global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
if {[info exists eventfile]} {
    # before the agents: Agent/TCP's init attaches each to the event trace
    set ef [open $eventfile w]
    $ns eventtrace-all $ef
}
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ $window
Agent/TCP set windowInit_ 1
Agent/TCP set tcpTick_ 0.1
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ [expr $buf / 12.0]
Queue/RED set maxthresh_ [expr 3.0 * $buf / 12.0]
Queue/RED set linterm_ 10
Queue/RED set gentle_ false
Queue/RED set q_weight_ 0.002
if {$scheme == "ecn"} {
    Queue/RED set setbit_ true
    Queue/RED set mark_p_ 2.0
    Agent/TCP set ecn_ 1
}

set r0 [$ns node]
set r1 [$ns node]
if {$scheme == "droptail"} {
    $ns duplex-link $r0 $r1 ${rate_b}Mb ${tauB}s DropTail
    # drop-tail.cc enque drops when length() + 1 >= qlim_: it holds
    # qlim_ - 1 waiting, red.cc (qlen >= qlim) and ccsim hold qlim_.
    set qlim [expr $buf + 1]
} else {
    $ns duplex-link $r0 $r1 ${rate_b}Mb ${tauB}s RED
    set qlim $buf
}
$ns queue-limit $r0 $r1 $qlim
$ns queue-limit $r1 $r0 $qlim
set tf [open $tracefile w]
$ns trace-queue $r0 $r1 $tf

if {[info exists telfile]} { set telf [open $telfile w] }
set kinds [list ftp]
if {$telnet} { lappend kinds tel }
for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 ${rate_a}Mb $tau($i)s DropTail
    $ns duplex-link $r1 $d($i) ${rate_a}Mb ${taur}s DropTail
    $ns queue-limit $s($i) $r0 1000
    $ns queue-limit $r1 $d($i) 1000
    foreach k $kinds {
        set tcp($k,$i) [new Agent/TCP/Reno]
        set sink($k,$i) [new Agent/TCPSink]
        $ns attach-agent $s($i) $tcp($k,$i)
        $ns attach-agent $d($i) $sink($k,$i)
        $ns connect $tcp($k,$i) $sink($k,$i)
        if {[info exists eventfile] || [info exists telfile]} {
            $tcp($k,$i) set fid_ [expr {2 * $i + ($k eq "tel")}]
        }
    }
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp(ftp,$i)
    $ns at $start($i) "$ftp($i) start"
    if {$telnet} {
        if {[info exists telf]} {
            $ns trace-queue $r1 $d($i) $telf
            $ns at 0.0 "telnext $i"
        } else {
            set tel($i) [new Application/Telnet]
            $tel($i) set interval_ $interval
            $tel($i) attach-agent $tcp(tel,$i)
            $ns at 0.0 "$tel($i) start"
        }
    }
}
# Application/Telnet's next() and timeout() (apps/telnet.cc), with each
# write logged: the next write one exponential interval from now.
# A negative time is a delay for ns-2's scheduler (scheduler.cc `at`:
# clock_ + delay, as a C++ timer's resched; `now + t` rounds differently).
proc telnext {i} {
    global ns defaultRNG interval
    set t [expr {-log([$defaultRNG uniform 0 1]) * $interval}]
    $ns at [expr {-$t}] "telwrite $i"
}
proc telwrite {i} {
    global ns tcp telf
    puts $telf "w $i [$ns now]"
    $tcp(tel,$i) advanceby 1
    telnext $i
}
proc acks {tag} {
    global N tcp kinds
    for {set i 0} {$i < $N} {incr i} {
        foreach k $kinds { puts "ack $tag $k $i [$tcp($k,$i) set ack_]" }
    }
}
proc counters {tag} {
    global N tcp kinds
    for {set i 0} {$i < $N} {incr i} {
        foreach k $kinds {
            set t $tcp($k,$i)
            puts "stat $tag $k $i [$t set nrexmit_] [$t set nrexmitpack_] [$t set ncwndcuts_] [$t set ncwndcuts1_] [$t set necnresponses_]"
        }
    }
}
$ns at $warm "acks warm; counters warm"
proc finish {} {
    global tf ef telf
    acks end
    counters end
    close $tf
    if {[info exists ef]} { close $ef }
    if {[info exists telf]} { close $telf }
    exit 0
}
$ns at $dur "finish"
$ns run
