// ns-3 dumbbell for validating ccsim against ns-3 3.44 (validation/ns3_suite.py).
//
// The network is ccsim's `kind = "dumbbell"` built the same way: N sources,
// each on its own access link to router r0, one bottleneck r0 -> r1, and N
// sinks on their own access links from r1. Flow i's two access links each
// get (rtt_i / 2 - bottleneck delay) / 2 of one-way delay, as ccsim's
// `rtt_s` does (net/topology.rs), so the round-trip propagation delays agree.
//
// Queues: the traffic-control layer is removed from every device
// (TrafficControlHelper::Uninstall), so a packet goes from IP straight into
// the PointToPointNetDevice's DropTail queue. With the queue's MaxSize = B
// packets that is exactly ccsim's droptail `limit_pkts = B`: B packets wait,
// the one being serialised is not counted (PointToPointNetDevice::Send
// enqueues and, on an idle device, dequeues at once). ns-3's default of a
// pfifo_fast queue disc (1000 packets) in front of a 100-packet device queue
// would instead give a buffer of 1100 + 1 packets.
//
// Everything about TCP (variant, segment size, initial window, minimum RTO,
// SACK, delayed ACKs, recovery, HyStart, ...) is set by the caller with
// ns-3's own `--ns3::Class::Attribute=value` defaults on the command line,
// so validation/ns3_suite.py holds the whole ns-3/ccsim mapping in one place.
//
// Measurement, over [warmup, duration] as ccsim measures after `warmup_s`:
//   - per flow: payload bytes the PacketSink received (in-order delivery to
//     the application: ccsim's delivered_bytes), retransmitted segments
//     (TcpSocketBase "Retransmission"), retransmission-timer expiries
//     (ReTxTimeout doubles m_rto: an "RTO" trace step to min(2 old, 60 s));
//   - bottleneck r0 -> r1: packets offered to it (ccsim's arrivals: the
//     device's MacTx plus the drops below), dropped because its queue was
//     full (r0's TrafficControlLayer "TcDrop": with no queue disc a full device
//     queue is stopped and the layer drops the packet before the device sees
//     it; MacTxDrop for completeness), and packets/bytes whose
//     serialisation started (PhyTxBegin, ccsim's tx_pkts/tx_bytes; sizes
//     include the 2-byte PPP header as they occupy the wire).
//
// With --qdisc (validation/ns3_aqm.py), the bottleneck r0 -> r1 instead
// carries an ns-3 queue disc in the traffic-control layer (CoDelQueueDisc,
// FqCoDelQueueDisc, PieQueueDisc or RedQueueDisc, every attribute from the
// command line) above a device DropTail of --deviceQueue packets (default 1,
// so the disc holds the buffer: while the link is busy one packet waits in
// the device, the next to be sent), optionally with DynamicQueueLimits
// (--bql=HoldTime, as tcp-validation.cc). Then over [warmup, duration]:
//   - arrivals: packets the disc received (its Enqueue and DropBeforeEnqueue
//     traces), drops: its Drop trace (before enqueue and after dequeue),
//     marks: its Mark trace (CE marks, ECN);
//   - per packet whose transmission started in the window: its sojourn in the
//     disc (the disc's dequeue time minus its enqueue time stamp: what the
//     "SojournTime" trace reports and the AQM sees) and its whole wait, disc
//     plus device queue (enqueue to PhyTxBegin): median, p99, mean;
//   - the time-average and maximum of the packets waiting (disc + device
//     queue; the one being serialised is not counted), and of the disc alone;
//   - per flow with TcpDctcp: the mean, minimum and maximum of alpha over its
//     updates ("CongestionEstimate") in the window, and the mean marked
//     fraction of the windows those updates closed.
// --cwndTrace=1 prints only flow 0's cwnd, ssthresh and congestion-state
// changes (the lines --trace prints for it), for comparing one window's
// history with ccsim's (validation/ns3_newuser.py).
// --trace=1 also prints the disc's enqueues, dequeues (with the sojourn),
// drops and marks, the device queue's length, each ACK (with ECE), ssthresh
// and alpha, the pacing rate (bits/s of payload), for following one packet
// or one window through both sides.
//
// Options for validation/ns3_bbr.py and benches/peer_ns3.py:
//   --types=T0,T1,...: each flow's TCP (an ns-3 TypeId such as ns3::TcpBbr,
//     set on its sender's and receiver's TcpL4Protocol "SocketType"),
//     instead of the one ns3::TcpL4Protocol::SocketType default for all;
//   --queueStats=1 (without --qdisc): per packet whose transmission started
//     in the window, its wait in the bottleneck's device DropTail (enqueue to
//     dequeue, which is the start of its transmission): median, p99, mean
//     ("wait_*"), and the time-average and maximum number waiting;
//   --cwndStats=1: per flow, from its "CongestionWindow" trace, the
//     intervals (whole run) during which cwnd stayed at 4 segments or below
//     after being above (BBR's ProbeRTT caps it at 4 for 200 ms and a round;
//     a timeout sets it to 1), and over the window its time-average, minimum
//     and maximum, in segments;
//   --lean=1: only the bottleneck's transmissions are counted (PhyTxBegin)
//     and each sink's total received bytes read at the end: no other trace is
//     connected, so Simulator::Run's wall time is ns-3's own (speed runs).
// Option for benches/peer_ns3.py's L4S stand-in (DCTCP sending ECT(1) over
// FqCoDelQueueDisc with UseL4s, the closest ns-3 has to Prague over DualPI2):
//   --ecnStats=1 (with --qdisc, not with --lean): over the window, the ECN
//     codepoints of the packets the disc received ("ecn_arrivals": not_ect,
//     ect1, ect0, ce) and its marks by the reason its Mark trace gives
//     ("marks_by_reason": CoDel's "CE threshold exceeded mark", the L4S
//     step, against "Target exceeded mark", its control law).
// One JSON object is printed on stdout.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

double g_warmup = 0.0;
bool g_trace = false;
bool g_cwndTrace = false; // --cwndTrace: flow 0's cwnd, ssthresh and state changes only
bool g_queueStats = false; // --queueStats: the device queue's per-packet wait (no --qdisc)
bool g_cwndStats = false;  // --cwndStats: per-flow cwnd dips and averages
bool g_ecnStats = false;   // --ecnStats: the disc's arrivals by ECN codepoint, marks by reason
uint64_t g_ecnArrivals[4] = {0, 0, 0, 0}; // by the IP ECN field: Not-ECT, ECT(1), ECT(0), CE
std::map<std::string, uint64_t> g_markReasons;
std::string g_pcap;

bool
InWindow()
{
    return Simulator::Now().GetSeconds() >= g_warmup;
}

struct FlowStats
{
    uint64_t rxBytes = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    uint64_t dataSegments = 0;
    double alphaSum = 0.0; // TcpDctcp: alpha over its updates in the window
    uint64_t alphaN = 0;
    double alphaMin = 1.0;
    double alphaMax = 0.0;
    double fSum = 0.0; // the marked fraction of each update's window
};

std::vector<FlowStats> g_flows;

struct LinkStats
{
    uint64_t arrivals = 0;
    uint64_t drops = 0;
    uint64_t txPkts = 0;
    uint64_t txBytes = 0;
    uint64_t marks = 0;
} g_bneck;

// The queue-disc mode (--qdisc).
bool g_qdisc = false;
// Keyed by the Packet object, which the disc's item, IP and the device share
// (a retransmission is a copy with the same uid, so uids are not unique).
std::unordered_map<const Packet*, Time> g_enqTime; // -> enqueue in the disc
std::unordered_map<const Packet*, Time> g_sojourn; // -> its sojourn in the disc
std::vector<double> g_sojournS;               // per transmitted packet in the window (s)
std::vector<double> g_waitS;                  // disc + device queue (s)
uint32_t g_qdiscPkts = 0;                     // packets in the disc now
uint32_t g_devPkts = 0;                       // packets in the device queue now
Time g_qLast;                                 // last change of either count
double g_qArea = 0.0;                         // integral of disc + device packets (pkt s)
double g_qdArea = 0.0;                        // of the disc's alone
uint32_t g_qMax = 0;
uint32_t g_qdMax = 0;
// --queueStats: enqueue time of each packet in the bottleneck's device queue
std::unordered_map<const Packet*, Time> g_devEnq;

// --cwndStats, per flow (cwnd in bytes; segment size read at hook time)
struct CwndStats
{
    uint32_t mss = 1;
    uint32_t last = 0;
    Time lastT;
    bool low = true; // at or below 4 segments (the first value comes from 0)
    std::vector<std::pair<double, double>> lows; // [start, end) at or below 4 segments
    double area = 0.0; // integral of cwnd (bytes s) over the window
    uint32_t min = UINT32_MAX;
    uint32_t max = 0;
};

std::vector<CwndStats> g_cwnd;

void
SinkRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    if (InWindow())
    {
        g_flows[i].rxBytes += p->GetSize();
    }
}

void
Retransmission(uint32_t i,
               Ptr<const Packet> p,
               const TcpHeader& h,
               const Address&,
               const Address&,
               Ptr<const TcpSocketBase>)
{
    if (g_trace)
    {
        std::cerr << "rtx " << Simulator::Now().GetSeconds() << " " << i << " "
                  << h.GetSequenceNumber() << "\n";
    }
    if (InWindow())
    {
        g_flows[i].retransmits++;
    }
}

void
TxSegment(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (g_trace && p->GetSize() > 0)
    {
        std::cerr << "tx " << Simulator::Now().GetSeconds() << " " << i << " "
                  << h.GetSequenceNumber() << " " << p->GetSize() << "\n";
    }
    if (InWindow() && p->GetSize() > 0)
    {
        g_flows[i].dataSegments++;
    }
}

void
CwndChanged(uint32_t i, uint32_t oldCwnd, uint32_t newCwnd)
{
    std::cerr << "cwnd " << Simulator::Now().GetSeconds() << " " << i << " " << newCwnd << "\n";
}

void
CongStateChanged(uint32_t i, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    std::cerr << "state " << Simulator::Now().GetSeconds() << " " << i << " "
              << TcpSocketState::TcpCongStateName[n] << "\n";
}

void
RtoChanged(uint32_t i, Time oldRto, Time newRto)
{
    // TcpSocketBase::ReTxTimeout is the only place that sets m_rto to
    // min(2 m_rto, 60 s); an RTT update landing exactly on twice the old
    // value (to the nanosecond) is not a practical concern.
    Time doubled = Min(oldRto + oldRto, Seconds(60));
    if (newRto == doubled && newRto != oldRto && InWindow())
    {
        g_flows[i].timeouts++;
    }
}

void
MacTx(Ptr<const Packet>)
{
    // (with a queue disc, its own traces count the arrivals)
    if (InWindow() && !g_qdisc)
    {
        g_bneck.arrivals++;
    }
}

void
MacTxDrop(Ptr<const Packet> p)
{
    if (g_trace)
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        c->RemoveHeader(tcp);
        std::cerr << "drop " << Simulator::Now().GetSeconds() << " " << ip.GetSource() << " "
                  << tcp.GetSequenceNumber() << "\n";
    }
    if (InWindow())
    {
        g_bneck.drops++;
    }
}

// With no queue disc, a full device queue stops its NetDeviceQueue
// (NetDeviceQueue::PacketEnqueued: WouldOverflow(1 packet)), and
// TrafficControlLayer::Send drops the next packet for it *before* the device
// sees it: no MacTx, no MacTxDrop, only the layer's "TcDrop" trace. Same
// rule as a DropTail of B packets, counted here as the bottleneck's drop and
// arrival. At r0 the only data packets (payload > 0) go to the bottleneck;
// its other devices carry the senders' ACKs.
void
RouterTcDrop(Ptr<const Packet> p)
{
    if (g_trace)
    {
        Ptr<Packet> c = p->Copy();
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ip);
        c->RemoveHeader(tcp);
        std::cerr << "drop " << Simulator::Now().GetSeconds() << " " << ip.GetSource() << " "
                  << tcp.GetSequenceNumber() << "\n";
    }
    if (InWindow() && p->GetSize() > 100)
    {
        g_bneck.arrivals++;
        g_bneck.drops++;
    }
}

void
PhyTxBegin(Ptr<const Packet> p)
{
    if (InWindow())
    {
        g_bneck.txPkts++;
        g_bneck.txBytes += p->GetSize();
    }
}

void
AnyDrop(std::string ctx, Ptr<const Packet> p)
{
    std::cerr << "anydrop " << Simulator::Now().GetSeconds() << " " << ctx << " " << p->GetSize()
              << "\n";
}

void
IpDrop(std::string ctx,
       const Ipv4Header& h,
       Ptr<const Packet> p,
       Ipv4L3Protocol::DropReason reason,
       Ptr<Ipv4>,
       uint32_t)
{
    std::cerr << "ipdrop " << Simulator::Now().GetSeconds() << " " << ctx << " reason " << reason
              << "\n";
}


// Queue-disc mode: the time integral of the packets waiting, advanced to now
// before either count changes (only the part inside the window counts).
void
QueueAdvance()
{
    Time now = Simulator::Now();
    Time from = Max(g_qLast, Seconds(g_warmup));
    if (now > from)
    {
        double dt = (now - from).GetSeconds();
        g_qArea += dt * (g_qdiscPkts + g_devPkts);
        g_qdArea += dt * g_qdiscPkts;
    }
    g_qLast = now;
}

void
QueueMax()
{
    if (InWindow())
    {
        g_qMax = std::max(g_qMax, g_qdiscPkts + g_devPkts);
        g_qdMax = std::max(g_qdMax, g_qdiscPkts);
    }
}

void
QdiscPackets(uint32_t, uint32_t n)
{
    QueueAdvance();
    g_qdiscPkts = n;
    QueueMax();
}

void
DevicePackets(uint32_t, uint32_t n)
{
    QueueAdvance();
    g_devPkts = n;
    QueueMax();
    if (g_trace)
    {
        std::cerr << "devq " << Simulator::Now().GetSeconds() << " " << n << " " << g_qdiscPkts << "\n";
    }
}

void
QdiscEnqueue(Ptr<const QueueDiscItem> item)
{
    g_enqTime[PeekPointer(item->GetPacket())] = Simulator::Now();
    if (g_trace)
    {
        Ptr<Packet> c = item->GetPacket()->Copy();
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        std::cerr << "qenq " << Simulator::Now().GetSeconds() << " " << item->GetPacket()->GetUid()
                  << " port " << tcp.GetDestinationPort() << " seq " << tcp.GetSequenceNumber()
                  << "\n";
    }
    if (InWindow())
    {
        g_bneck.arrivals++;
        uint8_t tos = 0;
        if (g_ecnStats && item->GetUint8Value(QueueItem::IP_DSFIELD, tos))
        {
            g_ecnArrivals[tos & 0x3]++;
        }
    }
}

void
QdiscDequeue(Ptr<const QueueDiscItem> item)
{
    if (g_trace)
    {
        Ptr<Packet> c = item->GetPacket()->Copy();
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        std::cerr << "qdeq " << Simulator::Now().GetSeconds() << " " << item->GetPacket()->GetUid()
                  << " port " << tcp.GetDestinationPort() << " seq " << tcp.GetSequenceNumber()
                  << " sojourn " << (Simulator::Now() - item->GetTimeStamp()).GetSeconds() << "\n";
    }
    g_sojourn[PeekPointer(item->GetPacket())] = Simulator::Now() - item->GetTimeStamp();
}

void
QdiscDropBeforeEnqueue(Ptr<const QueueDiscItem> item, const char* reason)
{
    if (g_trace)
    {
        std::cerr << "qdrop-before " << Simulator::Now().GetSeconds() << " "
                  << item->GetPacket()->GetUid() << " " << reason << "\n";
    }
    if (InWindow())
    {
        g_bneck.arrivals++;
    }
}

void
QdiscDropAfterDequeue(Ptr<const QueueDiscItem> item, const char* reason)
{
    if (g_trace)
    {
        std::cerr << "qdrop-after " << Simulator::Now().GetSeconds() << " "
                  << item->GetPacket()->GetUid() << " " << reason << "\n";
    }
}

void
QdiscDrop(Ptr<const QueueDiscItem> item)
{
    uint64_t uid = item->GetPacket()->GetUid();
    g_enqTime.erase(PeekPointer(item->GetPacket()));
    g_sojourn.erase(PeekPointer(item->GetPacket()));
    if (g_trace)
    {
        Ptr<Packet> c = item->GetPacket()->Copy();
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        std::cerr << "qdrop " << Simulator::Now().GetSeconds() << " " << uid << " port "
                  << tcp.GetDestinationPort() << " seq " << tcp.GetSequenceNumber() << "\n";
    }
    if (InWindow())
    {
        g_bneck.drops++;
    }
}

void
QdiscMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    if (g_trace)
    {
        std::cerr << "mark " << Simulator::Now().GetSeconds() << " "
                  << item->GetPacket()->GetUid() << " " << reason << "\n";
    }
    if (InWindow())
    {
        g_bneck.marks++;
        if (g_ecnStats)
        {
            g_markReasons[reason]++;
        }
    }
}

// The transmission of a packet that came through the disc starts: its sojourn
// in the disc and its whole wait, disc + device queue.
void
QdiscPhyTxBegin(Ptr<const Packet> p)
{
    auto e = g_enqTime.find(PeekPointer(p));
    auto s = g_sojourn.find(PeekPointer(p));
    if (e != g_enqTime.end() && s != g_sojourn.end() && InWindow())
    {
        g_sojournS.push_back(s->second.GetSeconds());
        g_waitS.push_back((Simulator::Now() - e->second).GetSeconds());
    }
    if (e != g_enqTime.end())
    {
        g_enqTime.erase(e);
    }
    if (s != g_sojourn.end())
    {
        g_sojourn.erase(s);
    }
}

// --queueStats: a packet enters and leaves the bottleneck's device queue
// (without a disc, PointToPointNetDevice dequeues a packet exactly when its
// transmission starts); a full queue's drops happen before it (TcDrop).
void
DevEnqueue(Ptr<const Packet> p)
{
    g_devEnq[PeekPointer(p)] = Simulator::Now();
}

void
DevDequeue(Ptr<const Packet> p)
{
    auto e = g_devEnq.find(PeekPointer(p));
    if (e == g_devEnq.end())
    {
        return;
    }
    if (InWindow())
    {
        g_waitS.push_back((Simulator::Now() - e->second).GetSeconds());
    }
    g_devEnq.erase(e);
}

void
DevDrop(Ptr<const Packet> p)
{
    g_devEnq.erase(PeekPointer(p));
}

// --cwndStats. A controller may set cwnd several times while handling one
// ACK (TcpBbr raises it, then caps it at 4 segments in ProbeRTT), so a value
// counts once it has been held for some time: when cwnd next changes at a
// later instant, or at the end, the value it held since c.lastT is settled.
void
CwndSettle(CwndStats& c)
{
    Time now = Simulator::Now();
    if (now <= c.lastT)
    {
        return;
    }
    if (c.last <= 4 * c.mss)
    {
        if (!c.low)
        {
            c.lows.emplace_back(c.lastT.GetSeconds(), -1.0);
        }
        c.low = true;
    }
    else
    {
        if (c.low && !c.lows.empty() && c.lows.back().second < 0)
        {
            c.lows.back().second = c.lastT.GetSeconds();
        }
        c.low = false;
    }
    Time from = Max(c.lastT, Seconds(g_warmup));
    if (now > from)
    {
        c.area += (now - from).GetSeconds() * c.last;
        c.min = std::min(c.min, c.last);
        c.max = std::max(c.max, c.last);
    }
    c.lastT = now;
}

void
CwndTrack(uint32_t i, uint32_t, uint32_t n)
{
    CwndStats& c = g_cwnd[i];
    CwndSettle(c);
    c.last = n;
}

void
DctcpAlpha(uint32_t i, uint32_t bytesMarked, uint32_t bytesAcked, double alpha)
{
    if (g_trace)
    {
        std::cerr << "alpha " << Simulator::Now().GetSeconds() << " " << i << " " << bytesMarked
                  << " " << bytesAcked << " " << alpha << "\n";
    }
    if (InWindow())
    {
        FlowStats& f = g_flows[i];
        f.alphaSum += alpha;
        f.alphaN++;
        f.alphaMin = std::min(f.alphaMin, alpha);
        f.alphaMax = std::max(f.alphaMax, alpha);
        f.fSum += bytesAcked > 0 ? double(bytesMarked) / bytesAcked : 0.0;
    }
}

void
PacingRateChanged(uint32_t i, DataRate, DataRate n)
{
    std::cerr << "pacing " << Simulator::Now().GetSeconds() << " " << i << " " << n.GetBitRate() << "\n";
}

void
SsthreshChanged(uint32_t i, uint32_t, uint32_t n)
{
    std::cerr << "ssthresh " << Simulator::Now().GetSeconds() << " " << i << " " << n << "\n";
}

void
RxSegment(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetFlags() & TcpHeader::ACK)
    {
        std::cerr << "ack " << Simulator::Now().GetSeconds() << " " << i << " "
                  << h.GetAckNumber() << " " << ((h.GetFlags() & TcpHeader::ECE) ? 1 : 0)
                  << "\n";
    }
}

// Median, 99th percentile and mean of xs (nearest rank: the value at rank
// ceil(q n)), as JSON fields prefixed by name.
std::string
Percentiles(const char* name, std::vector<double> xs)
{
    std::ostringstream o;
    o.precision(17);
    if (xs.empty())
    {
        o << "\"" << name << "_n\": 0";
        return o.str();
    }
    std::sort(xs.begin(), xs.end());
    auto rank = [&](double q) {
        size_t r = static_cast<size_t>(std::ceil(q * xs.size()));
        return xs[std::min(xs.size(), std::max<size_t>(r, 1)) - 1];
    };
    double sum = 0.0;
    for (double x : xs)
    {
        sum += x;
    }
    o << "\"" << name << "_n\": " << xs.size() << ", \"" << name << "_p50_s\": " << rank(0.5)
      << ", \"" << name << "_p99_s\": " << rank(0.99) << ", \"" << name
      << "_mean_s\": " << sum / xs.size() << ", \"" << name << "_max_s\": " << xs.back();
    return o.str();
}

// BulkSendApplication creates its socket in StartApplication, so the
// socket's traces are connected just after each application starts.
void
HookSocket(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "flow " << i << ": the BulkSend socket is not a TcpSocketBase");
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&Retransmission, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxSegment, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChanged, i));
    PointerValue ops;
    s->GetAttribute("CongestionOps", ops);
    if (Ptr<TcpDctcp> d = ops.Get<TcpDctcp>())
    {
        d->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&DctcpAlpha, i));
    }
    if (g_cwndStats)
    {
        UintegerValue mss;
        s->GetAttribute("SegmentSize", mss);
        g_cwnd[i].mss = mss.Get();
        g_cwnd[i].lastT = Simulator::Now();
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndTrack, i));
    }
    if (g_cwndTrace && i == 0 && !g_trace)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChanged, i));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChanged, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsthreshChanged, i));
    }
    if (g_trace)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChanged, i));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChanged, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsthreshChanged, i));
        s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&RxSegment, i));
        s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&PacingRateChanged, i));
    }
}

std::vector<double>
ParseList(const std::string& s, const char* what)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (item.empty())
        {
            continue;
        }
        try
        {
            out.push_back(std::stod(item));
        }
        catch (const std::exception&)
        {
            NS_ABORT_MSG("--" << what << ": not a number: " << item);
        }
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 1;
    double rateBps = 100e6;
    double edgeRateBps = 1e9;
    double bneckDelay = 0.01;
    uint32_t bufferPkts = 100;
    uint32_t edgeBufferPkts = 1000;
    std::string rttsArg = "0.1";
    std::string startsArg = "0";
    double duration = 30.0;
    uint32_t sendSize = 1448;
    std::string qdisc = "none";
    uint32_t deviceQueue = 1;
    std::string bql;
    std::string typesArg;
    bool lean = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", nFlows);
    cmd.AddValue("rate", "bottleneck rate (b/s)", rateBps);
    cmd.AddValue("edgeRate", "access-link rate (b/s)", edgeRateBps);
    cmd.AddValue("bneckDelay", "bottleneck one-way delay (s)", bneckDelay);
    cmd.AddValue("buffer", "bottleneck DropTail limit (packets waiting)", bufferPkts);
    cmd.AddValue("edgeBuffer", "access-link DropTail limit (packets)", edgeBufferPkts);
    cmd.AddValue("rtts", "comma-separated round-trip propagation delays (s), one per flow", rttsArg);
    cmd.AddValue("starts", "comma-separated start times (s), one per flow", startsArg);
    cmd.AddValue("duration", "simulated time (s)", duration);
    cmd.AddValue("warmup", "start of the measurement window (s)", g_warmup);
    cmd.AddValue("sendSize", "BulkSend write size (bytes)", sendSize);
    cmd.AddValue("pcap", "write pcap files of the bottleneck and flow 0's hosts with this prefix", g_pcap);
    cmd.AddValue("trace", "print every cwnd and congestion-state change on stderr", g_trace);
    cmd.AddValue("cwndTrace", "print flow 0's cwnd, ssthresh and state changes on stderr", g_cwndTrace);
    cmd.AddValue("qdisc",
                 "bottleneck queue disc: none (no traffic control, device DropTail of --buffer "
                 "packets) | codel | fq_codel | pie | red (attributes as --ns3::Class::Attr)",
                 qdisc);
    cmd.AddValue("deviceQueue", "with --qdisc: the bottleneck device's DropTail (packets)", deviceQueue);
    cmd.AddValue("bql", "with --qdisc: DynamicQueueLimits HoldTime on the bottleneck (e.g. 1ms)", bql);
    cmd.AddValue("types",
                 "comma-separated TCP TypeIds, one per flow (default: ns3::TcpL4Protocol::SocketType)",
                 typesArg);
    cmd.AddValue("queueStats", "without --qdisc: per-packet wait in the bottleneck's device queue", g_queueStats);
    cmd.AddValue("cwndStats", "per flow: cwnd dips to 4 segments or below, window average", g_cwndStats);
    cmd.AddValue("lean", "count only the bottleneck's transmissions (speed runs)", lean);
    cmd.AddValue("ecnStats",
                 "with --qdisc: the disc's arrivals by ECN codepoint, its marks by reason",
                 g_ecnStats);
    cmd.Parse(argc, argv);
    std::cerr.precision(10); // trace times to 0.1 µs and below

    std::vector<double> rtts = ParseList(rttsArg, "rtts");
    std::vector<double> starts = ParseList(startsArg, "starts");
    NS_ABORT_MSG_IF(nFlows < 1, "--flows must be at least 1");
    NS_ABORT_MSG_IF(rtts.size() != nFlows, "--rtts needs one value per flow");
    NS_ABORT_MSG_IF(starts.size() != nFlows, "--starts needs one value per flow");
    NS_ABORT_MSG_IF(g_warmup < 0 || g_warmup >= duration, "--warmup must be in [0, duration)");
    g_flows.resize(nFlows);
    g_cwnd.resize(nFlows);
    std::vector<std::string> types;
    {
        std::stringstream ss(typesArg);
        std::string t;
        while (std::getline(ss, t, ','))
        {
            if (!t.empty())
            {
                types.push_back(t);
            }
        }
    }
    NS_ABORT_MSG_IF(!types.empty() && types.size() != nFlows, "--types needs one TypeId per flow");
    NS_ABORT_MSG_IF(lean && (g_trace || g_cwndTrace || g_queueStats || g_cwndStats),
                    "--lean counts only transmissions: not with --trace, --cwndTrace, --queueStats, "
                    "--cwndStats");
    std::string qdiscType;
    if (qdisc == "codel")
    {
        qdiscType = "ns3::CoDelQueueDisc";
    }
    else if (qdisc == "fq_codel")
    {
        qdiscType = "ns3::FqCoDelQueueDisc";
    }
    else if (qdisc == "pie")
    {
        qdiscType = "ns3::PieQueueDisc";
    }
    else if (qdisc == "red")
    {
        qdiscType = "ns3::RedQueueDisc";
    }
    else
    {
        NS_ABORT_MSG_IF(qdisc != "none", "--qdisc: " << qdisc << "; allowed: none, codel, fq_codel, pie, red");
    }
    g_qdisc = !qdiscType.empty();
    NS_ABORT_MSG_IF(g_queueStats && g_qdisc, "--queueStats is for the device queue without --qdisc");
    NS_ABORT_MSG_IF(g_qdisc && deviceQueue < 1, "--deviceQueue must be at least 1");
    NS_ABORT_MSG_IF(g_ecnStats && (!g_qdisc || lean), "--ecnStats needs --qdisc and not --lean");

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer receivers;
    receivers.Create(nFlows);

    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    bneck.SetChannelAttribute("Delay", TimeValue(Seconds(bneckDelay)));
    bneck.SetQueue("ns3::DropTailQueue<Packet>",
                   "MaxSize",
                   QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufferPkts)));
    NetDeviceContainer bneckDev = bneck.Install(routers.Get(0), routers.Get(1));
    if (g_qdisc)
    {
        // The forward device's own queue is small: the disc above it holds the buffer.
        DynamicCast<PointToPointNetDevice>(bneckDev.Get(0))
            ->GetQueue()
            ->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, deviceQueue));
    }
    if (!g_pcap.empty())
    {
        bneck.EnablePcapAll(g_pcap + "-bneck");
    }

    TrafficControlHelper tch;
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bneckDev);
    tch.Uninstall(bneckDev);
    Ptr<QueueDisc> qd;
    if (g_qdisc)
    {
        TrafficControlHelper tq;
        tq.SetRootQueueDisc(qdiscType);
        if (!bql.empty())
        {
            tq.SetQueueLimits("ns3::DynamicQueueLimits", "HoldTime", StringValue(bql));
        }
        qd = tq.Install(bneckDev.Get(0)).Get(0);
    }

    std::vector<Ipv4Address> sinkAddr(nFlows);
    for (uint32_t i = 0; i < nFlows; i++)
    {
        double edgeDelay = (rtts[i] / 2.0 - bneckDelay) / 2.0;
        NS_ABORT_MSG_IF(edgeDelay < 0,
                        "flow " << i << ": rtt " << rtts[i]
                                << " s is below twice the bottleneck delay");
        PointToPointHelper edge;
        edge.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(edgeRateBps))));
        edge.SetChannelAttribute("Delay", TimeValue(Seconds(edgeDelay)));
        edge.SetQueue("ns3::DropTailQueue<Packet>",
                      "MaxSize",
                      QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, edgeBufferPkts)));
        NetDeviceContainer left = edge.Install(senders.Get(i), routers.Get(0));
        NetDeviceContainer right = edge.Install(routers.Get(1), receivers.Get(i));
        if (!g_pcap.empty())
        {
            edge.EnablePcap(g_pcap + "-edge", left.Get(0));
            edge.EnablePcap(g_pcap + "-edge", right.Get(1));
        }
        addr.NewNetwork();
        addr.Assign(left);
        addr.NewNetwork();
        Ipv4InterfaceContainer r = addr.Assign(right);
        sinkAddr[i] = r.GetAddress(1);
        tch.Uninstall(left);
        tch.Uninstall(right);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    for (uint32_t i = 0; i < types.size(); i++)
    {
        TypeId tid;
        NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(types[i], &tid),
                        "--types: flow " << i << ": no TypeId " << types[i]);
        for (Ptr<Node> n : {senders.Get(i), receivers.Get(i)})
        {
            n->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(tid));
        }
    }

    Ptr<PointToPointNetDevice> bdev = DynamicCast<PointToPointNetDevice>(bneckDev.Get(0));
    bool ok = bdev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTxBegin));
    Ptr<TrafficControlLayer> tc = routers.Get(0)->GetObject<TrafficControlLayer>();
    if (!lean)
    {
        ok = ok && bdev->TraceConnectWithoutContext("MacTx", MakeCallback(&MacTx));
        ok = ok && bdev->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&MacTxDrop));
        ok = ok && tc->TraceConnectWithoutContext("TcDrop", MakeCallback(&RouterTcDrop));
    }
    NS_ABORT_MSG_IF(!ok, "could not connect the bottleneck's traces");
    if (g_queueStats)
    {
        Ptr<Queue<Packet>> dq = bdev->GetQueue();
        ok = dq->TraceConnectWithoutContext("Enqueue", MakeCallback(&DevEnqueue));
        ok = ok && dq->TraceConnectWithoutContext("Dequeue", MakeCallback(&DevDequeue));
        ok = ok && dq->TraceConnectWithoutContext("Drop", MakeCallback(&DevDrop));
        ok = ok && dq->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DevicePackets));
        NS_ABORT_MSG_IF(!ok, "could not connect the device queue's traces");
    }
    if (g_qdisc && !lean)
    {
        ok = qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&QdiscEnqueue));
        ok = ok && qd->TraceConnectWithoutContext("Dequeue", MakeCallback(&QdiscDequeue));
        ok = ok && qd->TraceConnectWithoutContext("DropBeforeEnqueue",
                                                  MakeCallback(&QdiscDropBeforeEnqueue));
        ok = ok && qd->TraceConnectWithoutContext("Drop", MakeCallback(&QdiscDrop));
        ok = ok && qd->TraceConnectWithoutContext("DropAfterDequeue",
                                                  MakeCallback(&QdiscDropAfterDequeue));
        ok = ok && qd->TraceConnectWithoutContext("Mark", MakeCallback(&QdiscMark));
        ok = ok && qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QdiscPackets));
        ok = ok && bdev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                                MakeCallback(&DevicePackets));
        ok = ok && bdev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&QdiscPhyTxBegin));
        NS_ABORT_MSG_IF(!ok, "could not connect the queue disc's traces");
    }
    if (g_trace)
    {
        std::cerr << "queue " << bdev->GetQueue()->GetMaxSize() << " qdisc "
                  << (bdev->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(bdev) ? "yes" : "no") << "\n";
    }

    if (g_trace)
    {
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/MacTxDrop",
                        MakeCallback(&AnyDrop));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyRxDrop",
                        MakeCallback(&AnyDrop));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue/Drop",
                        MakeCallback(&AnyDrop));
        Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&IpDrop));
    }

    std::vector<Ptr<PacketSink>> sinks(nFlows);
    for (uint32_t i = 0; i < nFlows; i++)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0));
        sinks[i] = DynamicCast<PacketSink>(sinkApp.Get(0));
        if (!lean)
        {
            sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SinkRx, i));
        }

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(sendSize));
        ApplicationContainer srcApp = src.Install(senders.Get(i));
        srcApp.Start(Seconds(starts[i]));
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(srcApp.Get(0));
        if (!lean)
        {
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookSocket, i, app);
        }
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    QueueAdvance(); // the queue integral up to the end
    for (CwndStats& c : g_cwnd)
    {
        CwndSettle(c);
    }

    std::ostringstream o;
    o.precision(17);
    o << "{\"ns3_version\": \"3.44\", \"wall_s\": " << wall << ", \"duration_s\": " << duration
      << ", \"warmup_s\": " << g_warmup << ", \"bottleneck\": {\"arrivals\": " << g_bneck.arrivals
      << ", \"drops\": " << g_bneck.drops << ", \"tx_pkts\": " << g_bneck.txPkts
      << ", \"tx_bytes\": " << g_bneck.txBytes << ", \"rate_bps\": " << rateBps;
    if (g_queueStats)
    {
        double window = duration - g_warmup;
        o << ", " << Percentiles("wait", g_waitS) << ", \"avg_queue_pkts\": " << g_qArea / window
          << ", \"max_queue_pkts\": " << g_qMax;
    }
    if (g_qdisc)
    {
        double window = duration - g_warmup;
        o << ", \"qdisc\": \"" << qdiscType << "\", \"marks\": " << g_bneck.marks << ", "
          << Percentiles("sojourn", g_sojournS) << ", " << Percentiles("wait", g_waitS)
          << ", \"avg_queue_pkts\": " << g_qArea / window << ", \"max_queue_pkts\": " << g_qMax
          << ", \"avg_qdisc_pkts\": " << g_qdArea / window
          << ", \"max_qdisc_pkts\": " << g_qdMax;
        if (g_ecnStats)
        {
            o << ", \"ecn_arrivals\": {\"not_ect\": " << g_ecnArrivals[0]
              << ", \"ect1\": " << g_ecnArrivals[1] << ", \"ect0\": " << g_ecnArrivals[2]
              << ", \"ce\": " << g_ecnArrivals[3] << "}, \"marks_by_reason\": {";
            bool first = true;
            for (const auto& [why, n] : g_markReasons)
            {
                o << (first ? "" : ", ") << "\"" << why << "\": " << n;
                first = false;
            }
            o << "}";
        }
    }
    o << "}, \"flows\": [";
    for (uint32_t i = 0; i < nFlows; i++)
    {
        const FlowStats& f = g_flows[i];
        // --lean: the sink's whole-run total (no per-packet trace)
        o << (i ? ", " : "") << "{\"id\": " << i << ", \"rx_bytes\": "
          << (lean ? sinks[i]->GetTotalRx() : f.rxBytes)
          << ", \"retransmits\": " << f.retransmits << ", \"timeouts\": " << f.timeouts
          << ", \"data_segments\": " << f.dataSegments << ", \"rtt_s\": " << rtts[i]
          << ", \"start_s\": " << starts[i];
        if (f.alphaN > 0)
        {
            o << ", \"dctcp_alpha_mean\": " << f.alphaSum / f.alphaN
              << ", \"dctcp_alpha_min\": " << f.alphaMin << ", \"dctcp_alpha_max\": " << f.alphaMax
              << ", \"dctcp_f_mean\": " << f.fSum / f.alphaN
              << ", \"dctcp_alpha_updates\": " << f.alphaN;
        }
        if (g_cwndStats)
        {
            const CwndStats& c = g_cwnd[i];
            o << ", \"cwnd_low_s\": [";
            for (size_t k = 0; k < c.lows.size(); k++)
            {
                double end = c.lows[k].second < 0 ? duration : c.lows[k].second;
                o << (k ? ", " : "") << "[" << c.lows[k].first << ", " << end << "]";
            }
            o << "], \"cwnd_avg_segments\": " << c.area / (duration - g_warmup) / c.mss
              << ", \"cwnd_min_segments\": " << double(c.min) / c.mss
              << ", \"cwnd_max_segments\": " << double(c.max) / c.mss;
        }
        o << "}";
    }
    o << "]}";
    std::cout << o.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
