// How many of this process's threads want a core, sampled every few milliseconds, and what that
// says about scaling. A thread wants a core when /proc/self/task/<tid>/stat shows it running or
// runnable (state R). The share of samples in which at most one thread wants a core is the run's
// serial share s: that time does not shrink with more cores, so Amdahl's law projects a speed-up
// of 1 / (s + (1 - s) / n) at n cores, which a 2-core machine can measure for a big one
// (docs/performance.md). Linux only: elsewhere no samples are taken.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace neardup {

struct ThreadSamples {
    uint64_t samples = 0;
    uint64_t one = 0;   // exactly one thread wanted a core
    uint64_t none = 0;  // none did (all waiting: the disk, a lock, a sleep)

    // (one + none) / samples; 0 without samples.
    double serialShare() const;
    // Amdahl's projected speed-up at `cores` cores from the serial share.
    double projectedSpeedup(int cores) const;
};

class ThreadSampler {
  public:
    // Starts sampling on a thread of its own, which never counts itself.
    explicit ThreadSampler(std::chrono::microseconds period = std::chrono::milliseconds(5));
    ~ThreadSampler();  // stops
    ThreadSampler(const ThreadSampler&) = delete;
    ThreadSampler& operator=(const ThreadSampler&) = delete;

    // Stops sampling and returns what was counted.
    ThreadSamples stop();

    // Samples from now on also count under `label` (0 .. kLabels - 1; a phase's number): where
    // the serial time goes. Label 0 until set.
    static constexpr int kLabels = 32;
    void setLabel(int label) { label_.store(label, std::memory_order_relaxed); }
    // After stop(): what was counted under each label.
    const ThreadSamples& underLabel(int label) const { return byLabel_[label]; }

  private:
    void sample(long self);
    std::chrono::microseconds period_;
    std::atomic<bool> stop_{false};
    std::atomic<int> label_{0};
    ThreadSamples counts_;
    ThreadSamples byLabel_[kLabels];
    std::thread thread_;
};

// How many threads of this process other than `exceptTid` are running or runnable now; -1 when
// /proc cannot tell.
int threadsWantingACore(long exceptTid);

}  // namespace neardup
