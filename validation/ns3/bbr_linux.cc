// An experimental ns-3 for tracing the BBR comparison's differences
// (validation/ns3_bbr.py, docs/validation.md "ns-3: BBR"): ns-3 3.44's
// TcpBbr and TcpRateLinux with three behaviours of Linux's BBR (and of
// ccsim's), each turned on by an environment variable. Linked beside
// dumbbell.cc (ns3_suite.build(extra=[this file])); the wheel's library binds
// its virtual calls locally, so the functions are swapped in the classes'
// vtables when the program loads. Nothing here changes ns-3's shipped
// behaviour: with no variable set the program is dumbbell.cc.
//
//   NS3BBR_RATE_SAMPLE=1: each ACK's delivery-rate sample starts from that
//     ACK's own newest delivered segment, as Linux's `struct rate_sample` on
//     tcp_ack()'s stack. ns-3 keeps one TcpRateSample for the connection
//     (tcp-rate-ops.h:237) and replaces its reference only with a segment
//     sent later than the previous ACK's (tcp-rate-ops.cc:173), so an ACK
//     whose newest segment went out with the previous one keeps the previous
//     ACK's interval (tcp-rate-ops.cc:91) while counting one more segment
//     delivered: a sample above the delivery rate.
//   NS3BBR_MINRTT_LT=1: RTprop is renewed only by a lower RTT sample (`<`,
//     Linux since "tcp: only postpone PROBE_RTT if RTT is < current min_rtt
//     estimate", 2020) where TcpBbr::UpdateRTprop (tcp-bbr.cc:362) renews it
//     on an equal one (`<=`, Linux 5.4), which with ns-3's whole-millisecond
//     RTT samples postpones ProbeRTT whenever the queue empties.
//   NS3BBR_RESTORE=1: TcpBbr::GetSsThresh returns the cwnd it saves, so that
//     TcpSocketBase::ProcessAck's cwnd = ssthresh when fast recovery ends
//     (tcp-socket-base.cc:2247, run for every controller, after TcpBbr's
//     RestoreCwnd) restores it, as Linux does (bbr_set_cwnd_to_recover_or_
//     restore; tcp_end_cwnd_reduction leaves a cong_control controller
//     alone). Shipped, ssthresh is the BDP estimate of the moment Drain began
//     (tcp-bbr.cc:348) and cwnd drops to it after every recovery.
#include "ns3/tcp-bbr.h"
#include "ns3/tcp-rate-ops.h"
#include "ns3/simulator.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace ns3;

// The private members these functions read: an explicit instantiation may
// name a private member, so a pointer to it is handed out through a friend
// function (the standard's access-check exemption for explicit
// instantiations, [temp.spec]).
template <typename Tag, typename Tag::type M>
struct Rob
{
    friend typename Tag::type get(Tag)
    {
        return M;
    }
};
#define ROB(NAME, CLASS, TYPE, MEMBER)                                                               \
    struct NAME                                                                                    \
    {                                                                                              \
        typedef TYPE CLASS::*type;                                                                 \
        friend type get(NAME);                                                                     \
    };                                                                                             \
    template struct Rob<NAME, &CLASS::MEMBER>;

ROB(RateTag, TcpRateLinux, TcpRateOps::TcpRateConnection, m_rate)
ROB(SampleTag, TcpRateLinux, TcpRateOps::TcpRateSample, m_rateSample)
ROB(DeliveredTag, TcpBbr, uint64_t, m_delivered)
ROB(MinRttTag, TcpBbr, TracedValue<Time>, m_minRtt)
ROB(MinRttStampTag, TcpBbr, Time, m_minRttStamp)
ROB(MinRttFilterLenTag, TcpBbr, Time, m_minRttFilterLen)
ROB(MinRttExpiredTag, TcpBbr, bool, m_minRttExpired)
ROB(PriorCwndTag, TcpBbr, uint32_t, m_priorCwnd)

// TcpRateLinux::GenerateSample (tcp-rate-ops.cc:46-126) unchanged but for the
// last two assignments: the next ACK's SkbDelivered takes its first delivered
// segment as the reference (m_priorDelivered == 0), then any sent later.
// The caller copies the returned sample (`auto rateSample = ...`).
static const TcpRateOps::TcpRateSample&
RateSample(TcpRateLinux* self, uint32_t delivered, uint32_t lost, bool is_sack_reneg, uint32_t priorInFlight,
           const Time& minRtt)
{
    static TcpRateOps::TcpRateSample out;
    auto& m_rate = self->*get(RateTag());
    auto& m_rateSample = self->*get(SampleTag());
    if (m_rate.m_appLimited != 0 && m_rate.m_delivered > m_rate.m_appLimited)
    {
        m_rate.m_appLimited = 0;
    }
    m_rateSample.m_ackedSacked = delivered;
    m_rateSample.m_bytesLoss = lost;
    m_rateSample.m_priorInFlight = priorInFlight;
    if (m_rateSample.m_priorTime.IsZero() || is_sack_reneg)
    {
        m_rateSample.m_delivered = -1;
        m_rateSample.m_interval = Seconds(0);
    }
    else
    {
        m_rateSample.m_interval = std::max(m_rateSample.m_sendElapsed, m_rateSample.m_ackElapsed);
        m_rateSample.m_delivered = m_rate.m_delivered - m_rateSample.m_priorDelivered;
        if (m_rateSample.m_interval < minRtt)
        {
            m_rateSample.m_interval = Seconds(0);
            m_rateSample.m_priorTime = Seconds(0);
        }
        else if (!m_rateSample.m_isAppLimited ||
                 (m_rateSample.m_delivered * m_rate.m_rateInterval >=
                  m_rate.m_rateDelivered * m_rateSample.m_interval))
        {
            m_rate.m_rateDelivered = m_rateSample.m_delivered;
            m_rate.m_rateInterval = m_rateSample.m_interval;
            m_rate.m_rateAppLimited = m_rateSample.m_isAppLimited;
            m_rateSample.m_deliveryRate =
                DataRate(m_rateSample.m_delivered * 8.0 / m_rateSample.m_interval.GetSeconds());
        }
    }
    out = m_rateSample;
    m_rateSample.m_priorDelivered = 0; // the next ACK starts from its own newest delivered segment
    m_rateSample.m_priorTime = Seconds(0);
    return out;
}

// TcpBbr::CongControl (tcp-bbr.cc:703) with UpdateModelAndState
// (tcp-bbr.cc:638) inlined and UpdateRTprop's `<=` (tcp-bbr.cc:362) made `<`
static void
CongControl(TcpBbr* self, Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
            const TcpRateOps::TcpRateSample& rs)
{
    self->*get(DeliveredTag()) = rc.m_delivered;
    self->UpdateBottleneckBandwidth(tcb, rs);
    self->UpdateAckAggregation(tcb, rs);
    self->CheckCyclePhase(tcb, rs);
    self->CheckFullPipe(rs);
    self->CheckDrain(tcb);
    // UpdateRTprop
    TracedValue<Time>& minRtt = self->*get(MinRttTag());
    Time& stamp = self->*get(MinRttStampTag());
    bool& expired = self->*get(MinRttExpiredTag());
    expired = Simulator::Now() > (stamp + self->*get(MinRttFilterLenTag()));
    if (tcb->m_lastRtt.Get().IsPositive() && (tcb->m_lastRtt.Get() < minRtt.Get() || expired))
    {
        minRtt = tcb->m_lastRtt.Get();
        stamp = Simulator::Now();
    }
    self->CheckProbeRTT(tcb, rs);
    self->UpdateControlParameters(tcb, rs);
}

// TcpBbr::GetSsThresh (tcp-bbr.cc:789) returning the saved cwnd instead of
// the unchanged ssthresh
static uint32_t
GetSsThresh(TcpBbr* self, Ptr<const TcpSocketState> tcb, uint32_t)
{
    self->SaveCwnd(tcb);
    return self->*get(PriorCwndTag());
}

// The member functions above are called as `this` first, the Itanium C++
// ABI's convention for a member function: the same as these free functions'.
static void
PatchSlot(const char* vtable, const char* fn, void* with)
{
    void* vt = dlsym(RTLD_DEFAULT, vtable);
    void* orig = dlsym(RTLD_DEFAULT, fn);
    if (!vt || !orig)
    {
        std::fprintf(stderr, "bbr_linux: %s or %s not found\n", vtable, fn);
        std::exit(3);
    }
    void** slots = static_cast<void**>(vt);
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < 64; i++)
    {
        if (slots[i] == orig)
        {
            uintptr_t a = reinterpret_cast<uintptr_t>(&slots[i]) & ~(uintptr_t)(page - 1);
            if (mprotect(reinterpret_cast<void*>(a), page, PROT_READ | PROT_WRITE) != 0)
            {
                std::perror("bbr_linux: mprotect");
                std::exit(3);
            }
            slots[i] = with;
            mprotect(reinterpret_cast<void*>(a), page, PROT_READ);
            std::fprintf(stderr, "bbr_linux: %s\n", fn);
            return;
        }
    }
    std::fprintf(stderr, "bbr_linux: no slot for %s\n", fn);
    std::exit(3);
}

static bool
On(const char* v)
{
    const char* s = std::getenv(v);
    return s && std::strcmp(s, "1") == 0;
}

__attribute__((constructor)) static void
Patch()
{
    if (On("NS3BBR_RATE_SAMPLE"))
    {
        PatchSlot("_ZTVN3ns312TcpRateLinuxE", "_ZN3ns312TcpRateLinux14GenerateSampleEjjbjRKNS_4TimeE",
                  reinterpret_cast<void*>(&RateSample));
    }
    if (On("NS3BBR_MINRTT_LT"))
    {
        PatchSlot("_ZTVN3ns36TcpBbrE",
                  "_ZN3ns36TcpBbr11CongControlENS_3PtrINS_14TcpSocketStateEEERKNS_10TcpRateOps17TcpRateConnectionERKNS4_13TcpRateSampleE",
                  reinterpret_cast<void*>(&CongControl));
    }
    if (On("NS3BBR_RESTORE"))
    {
        PatchSlot("_ZTVN3ns36TcpBbrE", "_ZN3ns36TcpBbr11GetSsThreshENS_3PtrIKNS_14TcpSocketStateEEEj",
                  reinterpret_cast<void*>(&GetSsThresh));
    }
}
