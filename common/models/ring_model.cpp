// ring_model.cpp: the CPU model of the mbarrier ring (see ring_model.h for what it models).
#include "ring_model.h"

#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <random>
#include <tuple>
#include <set>

namespace ladder::ring {

namespace {

struct Barrier {
    uint32_t count = 0;
    uint32_t pending = 0;  // arrivals still missing in the current phase
    long tx = 0;           // transaction count: bytes announced minus bytes landed
    long phase = 0;        // the current (incomplete) phase; phase - 1 is the last complete
    std::vector<int> arrived_at;  // k-blocks of this phase's arrivals, for the report
};

struct Slot {
    int k_block = -1;    // whose bytes it holds (or is being written with)
    long landed = 0;     // how many of them have landed
    std::set<int> readers;  // agents reading it now
    std::vector<int> reader_k_block;  // per agent: the k-block it reads here
};

struct Copy {
    int cta;
    int slot;
    int k_block;
    long bytes;
    int issuer;
};

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

class Simulation {
public:
    Simulation(const Protocol& p, uint64_t seed)
        : p_(p), seed_(seed), rng_(seed * 0x9E3779B97F4A7C15ull + 1) {
        barriers_.resize(static_cast<size_t>(p.ctas) * p.stages * 2);
        for (int c = 0; c < p.ctas; ++c)
            for (int s = 0; s < p.stages; ++s) {
                bar(p.full(c, s)).count = bar(p.full(c, s)).pending = p.full_count;
                bar(p.empty(c, s)).count = bar(p.empty(c, s)).pending = p.empty_count;
            }
        slots_.resize(static_cast<size_t>(p.ctas) * p.stages);
        for (Slot& s : slots_) s.reader_k_block.assign(p.agents.size(), -1);
        pc_.assign(p.agents.size(), 0);
        syncs_passed_.assign(p.agents.size(), 0);
        last_phase_.assign(p.agents.size() * barriers_.size(), kNone);
    }

    Verdict run() {
        for (long steps = 0;; ++steps) {
            if (!error_.empty()) return {false, error_, seed_};
            std::vector<int> movable;  // agents that can run their next op; then copies
            bool all_done = true;
            for (size_t a = 0; a < p_.agents.size(); ++a) {
                if (done(a)) continue;
                all_done = false;
                if (can_run(a)) movable.push_back(static_cast<int>(a));
            }
            if (all_done && copies_.empty()) return {true, "", seed_};
            const int choices = static_cast<int>(movable.size() + copies_.size());
            if (choices == 0) return {false, hang_report(), seed_};
            if (seed_ == 0) {
                // In order: the first agent that can move; copies only when none can.
                if (!movable.empty()) step(movable.front());
                else land(0);
                continue;
            }
            const int pick = static_cast<int>(rng_() % static_cast<uint64_t>(choices));
            if (pick < static_cast<int>(movable.size())) step(movable[pick]);
            else land(pick - static_cast<int>(movable.size()));
        }
    }

private:
    static constexpr long kNone = -3;

    size_t bar_index(BarrierId b) const {
        return (static_cast<size_t>(b.cta) * p_.stages + b.index) * 2 + (b.kind == Kind::Empty);
    }
    Barrier& bar(BarrierId b) { return barriers_[bar_index(b)]; }
    Slot& slot(int cta, int s) { return slots_[static_cast<size_t>(cta) * p_.stages + s]; }
    bool done(size_t a) const { return pc_[a] >= p_.agents[a].ops.size(); }
    const Op& next(size_t a) const { return p_.agents[a].ops[pc_[a]]; }
    const std::string& who(size_t a) const { return p_.agents[a].name; }
    std::string name(BarrierId b) const { return barrier_name(p_, b); }

    bool valid(BarrierId b) const {
        return b.cta >= 0 && b.cta < p_.ctas && b.index >= 0 && b.index < p_.stages &&
               (b.kind == Kind::Full || p_.empty_count > 0);
    }

    bool can_run(size_t a) const {
        const Op& op = next(a);
        if (op.code == OpCode::Wait) return valid(op.barrier) && (barriers_[bar_index(op.barrier)].phase & 1) != op.parity;
        if (op.code == OpCode::SyncThreads) {
            // Every agent of this CTA that has not exited must be at this __syncthreads()
            // too (or already past it).
            for (size_t o = 0; o < p_.agents.size(); ++o) {
                if (o == a || p_.agents[o].cta != p_.agents[a].cta || done(o)) continue;
                const bool here = syncs_passed_[o] > syncs_passed_[a] ||
                                  (syncs_passed_[o] == syncs_passed_[a] &&
                                   next(o).code == OpCode::SyncThreads);
                if (!here) return false;
            }
            return true;
        }
        return true;
    }

    void fail(std::string message) {
        if (error_.empty()) error_ = std::move(message);
    }

    // A phase of barrier b completed: record it and start the next.
    void complete_if_done(BarrierId b) {
        Barrier& x = bar(b);
        if (x.pending == 0 && x.tx == 0) {
            ++x.phase;
            x.pending = x.count;
            x.arrived_at.clear();
        }
    }

    void arrive(BarrierId b, int k_block, size_t a) {
        if (!valid(b)) return fail(format("%s arrives on a barrier that does not exist (CTA %d, slot %d) at k-block %d",
                                          who(a).c_str(), b.cta, b.index, k_block));
        Barrier& x = bar(b);
        if (x.count == 0) return fail(format("%s arrives on %s, initialised with count 0", who(a).c_str(), name(b).c_str()));
        --x.pending;
        x.arrived_at.push_back(k_block);
        complete_if_done(b);
    }

    void step(int ai) {
        const size_t a = static_cast<size_t>(ai);
        const Op op = next(a);
        ++pc_[a];
        switch (op.code) {
        case OpCode::Wait: {
            // Which phase did this wait just pass on, and was it the next one for this agent?
            Barrier& x = bar(op.barrier);
            const long passed = x.phase - 1;
            long& last = last_phase_[a * barriers_.size() + bar_index(op.barrier)];
            if (last != kNone && passed == last)
                fail(format("stale wait: %s waits on %s parity %u at k-block %d and passes at once on "
                            "phase %ld, which it already waited for: the parity did not change since "
                            "its last wait there (a missing flip when the slot wrapped?)",
                            who(a).c_str(), name(op.barrier).c_str(), op.parity, op.k_block, passed));
            else if (last != kNone && passed > last + 1)
                fail(format("stale wait: %s waits on %s parity %u at k-block %d and passes on phase %ld, "
                            "but its previous wait there passed on phase %ld: it fell two phases behind, "
                            "and try_wait.parity took phase %ld for phase %ld (same parity)",
                            who(a).c_str(), name(op.barrier).c_str(), op.parity, op.k_block, passed,
                            last, passed, last + 1));
            last = passed;
            break;
        }
        case OpCode::Arrive: arrive(op.barrier, op.k_block, a); break;
        case OpCode::ExpectTx:
            if (!valid(op.barrier)) return fail(format("%s: expect_tx on a barrier that does not exist", who(a).c_str()));
            bar(op.barrier).tx += op.bytes;
            arrive(op.barrier, op.k_block, a);
            break;
        case OpCode::Load: {
            const uint32_t mask = op.cta_mask ? op.cta_mask : (1u << p_.agents[a].cta);
            for (int c = 0; c < p_.ctas; ++c) {
                if (!(mask & (1u << c))) continue;
                check_write(c, op.slot, op.k_block, a);
                copies_.push_back({c, op.slot, op.k_block, op.bytes, ai});
            }
            break;
        }
        case OpCode::ReadBegin: {
            Slot& s = slot(p_.agents[a].cta, op.slot);
            if (s.k_block != op.k_block || s.landed < p_.stage_bytes)
                fail(format("race: %s reads slot %d for k-block %d, but it holds %s (%ld of %ld bytes "
                            "landed): its wait passed before the copy was complete",
                            who(a).c_str(), op.slot, op.k_block,
                            s.k_block < 0 ? "nothing yet" : format("k-block %d", s.k_block).c_str(),
                            s.k_block == op.k_block ? s.landed : 0L, p_.stage_bytes));
            s.readers.insert(ai);
            s.reader_k_block[a] = op.k_block;
            break;
        }
        case OpCode::ReadEnd: slot(p_.agents[a].cta, op.slot).readers.erase(ai); break;
        case OpCode::SyncThreads: ++syncs_passed_[a]; break;
        }
    }

    // A copy into (cta, slot) for k_block is issued or lands: nobody may be reading it.
    void check_write(int cta, int s_index, int k_block, size_t writer) {
        Slot& s = slot(cta, s_index);
        if (!s.readers.empty()) {
            const int reader = *s.readers.begin();
            fail(format("race: %s refills slot %d%s with k-block %d while %s still reads k-block %d there",
                        who(writer).c_str(), s_index,
                        p_.ctas > 1 ? format(" of CTA %d", cta).c_str() : "", k_block,
                        who(static_cast<size_t>(reader)).c_str(), s.reader_k_block[reader]));
            return;
        }
        // Nobody reads it right now; but is there an agent that has yet to read what it holds?
        if (s.k_block < 0 || s.k_block == k_block) return;
        for (size_t o = 0; o < p_.agents.size(); ++o) {
            if (p_.agents[o].cta != cta) continue;
            const std::vector<Op>& ops = p_.agents[o].ops;
            for (size_t i = pc_[o]; i < ops.size(); ++i)
                if (ops[i].code == OpCode::ReadBegin && ops[i].slot == s_index &&
                    ops[i].k_block == s.k_block)
                    return fail(format("race: %s refills slot %d%s with k-block %d before %s has read "
                                       "k-block %d there",
                                       who(writer).c_str(), s_index,
                                       p_.ctas > 1 ? format(" of CTA %d", cta).c_str() : "", k_block,
                                       who(o).c_str(), s.k_block));
        }
    }

    void land(int index) {
        const Copy c = copies_[static_cast<size_t>(index)];
        copies_.erase(copies_.begin() + index);
        check_write(c.cta, c.slot, c.k_block, static_cast<size_t>(c.issuer));
        Slot& s = slot(c.cta, c.slot);
        if (s.k_block != c.k_block) {
            s.k_block = c.k_block;
            s.landed = 0;
        }
        s.landed += c.bytes;
        const BarrierId full = p_.full(c.cta, c.slot);
        bar(full).tx -= c.bytes;
        complete_if_done(full);
    }

    // Every agent is stuck and no copy is in flight. The headline is the wait at the
    // earliest k-block (a partly arrived phase first: the sign of a wrong count; then a
    // producer's empty wait, whose consumers wait in turn for its fill); the other stuck
    // agents follow.
    std::string hang_report() const {
        std::vector<size_t> stuck;
        for (size_t a = 0; a < p_.agents.size(); ++a)
            if (!done(a)) stuck.push_back(a);
        auto rank = [&](size_t a) {
            const Op& op = next(a);
            if (op.code != OpCode::Wait || !valid(op.barrier)) return std::make_tuple(op.k_block, 2, 2);
            const Barrier& x = barriers_[bar_index(op.barrier)];
            return std::make_tuple(op.k_block, x.pending == x.count ? 1 : 0,
                                   op.barrier.kind == Kind::Empty ? 0 : 1);
        };
        std::stable_sort(stuck.begin(), stuck.end(),
                         [&](size_t l, size_t r) { return rank(l) < rank(r); });
        std::string report = "hang: " + stuck_at(stuck.front(), true);
        for (size_t i = 1; i < stuck.size() && i < 4; ++i)
            report += (i == 1 ? "\n  also stuck: " : "\n              ") + stuck_at(stuck[i], false);
        if (stuck.size() > 4) report += format("\n              (and %zu more)", stuck.size() - 4);
        return report;
    }

    std::string stuck_at(size_t a, bool explain) const {
        const Op& op = next(a);
        if (op.code == OpCode::SyncThreads)
            return format("%s waits at __syncthreads() at k-block %d, which not every warp reaches",
                          who(a).c_str(), op.k_block);
        if (!valid(op.barrier))
            return format("%s waits on a barrier that does not exist (CTA %d, slot %d)", who(a).c_str(),
                          op.barrier.cta, op.barrier.index);
        std::string line = format("%s waits on %s parity %u at k-block %d", who(a).c_str(),
                                  name(op.barrier).c_str(), op.parity, op.k_block);
        if (!explain) return line;
        const Barrier& x = barriers_[bar_index(op.barrier)];
        const long last = last_phase_[a * barriers_.size() + bar_index(op.barrier)];
        if (last != kNone && x.phase > last + 2)
            return line + format(", which can never complete: its last wait there passed on phase %ld, "
                                 "and the barrier is already in phase %ld; it fell two phases behind, "
                                 "and try_wait.parity cannot tell phase %ld from phase %ld",
                                 last, x.phase, x.phase - 2, x.phase);
        std::string missing = format("%u of %u arrivals", x.pending, x.count);
        if (x.tx > 0) missing += format(" and %ld bytes", x.tx);
        std::string extra;
        if (x.tx < 0)
            extra = format(" (%ld bytes more have landed than were announced with expect_tx: the "
                           "transaction count is below zero and cannot come back to it)", -x.tx);
        return line + format(", which can never complete: phase %ld still needs %s%s, and every "
                             "agent that could still arrive there is stuck or done",
                             x.phase, missing.c_str(), extra.c_str());
    }

    const Protocol& p_;
    uint64_t seed_;
    std::mt19937_64 rng_;
    std::vector<Barrier> barriers_;
    std::vector<Slot> slots_;
    std::vector<Copy> copies_;
    std::vector<size_t> pc_;
    std::vector<long> syncs_passed_;
    std::vector<long> last_phase_;  // per (agent, barrier): the phase its last wait passed on
    std::string error_;
};

}  // namespace

std::string barrier_name(const Protocol& protocol, BarrierId b) {
    std::string s = format("%s[%d]", b.kind == Kind::Full ? "full" : "empty", b.index);
    if (protocol.ctas > 1) s += format(" of CTA %d", b.cta);
    return s;
}

Verdict run(const Protocol& protocol, uint64_t seed) { return Simulation(protocol, seed).run(); }

Verdict run_seeds(const Protocol& protocol, int seeds, uint64_t first_seed) {
    for (int i = 0; i < seeds; ++i) {
        Verdict v = run(protocol, first_seed + static_cast<uint64_t>(i));
        if (!v.ok) return v;
    }
    return {true, "", 0};
}

}  // namespace ladder::ring
