#include "thread_sampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace neardup {

double ThreadSamples::serialShare() const {
    return samples == 0 ? 0.0 : double(one + none) / double(samples);
}

double ThreadSamples::projectedSpeedup(int cores) const {
    const double s = serialShare();
    return 1.0 / (s + (1.0 - s) / double(cores));
}

int threadsWantingACore(long exceptTid) {
#ifdef __linux__
    DIR* dir = ::opendir("/proc/self/task");
    if (dir == nullptr) return -1;
    int wanting = 0;
    char path[64];
    char stat[512];
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        const long tid = std::strtol(entry->d_name, nullptr, 10);
        if (tid == exceptTid) continue;
        std::snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // the thread ended meanwhile
        const ssize_t n = ::read(fd, stat, sizeof stat - 1);
        ::close(fd);
        if (n <= 0) continue;
        stat[n] = '\0';
        // "tid (name) S ...": the name may hold spaces and parentheses; the state follows the
        // last ')'.
        const char* close = std::strrchr(stat, ')');
        if (close != nullptr && close[1] == ' ' && close[2] == 'R') ++wanting;
    }
    ::closedir(dir);
    return wanting;
#else
    (void)exceptTid;
    return -1;
#endif
}

ThreadSampler::ThreadSampler(std::chrono::microseconds period) : period_(period) {
    thread_ = std::thread([this] {
#ifdef __linux__
        const long self = ::syscall(SYS_gettid);
#else
        const long self = 0;
#endif
        while (!stop_.load(std::memory_order_relaxed)) {
            sample(self);
            std::this_thread::sleep_for(period_);
        }
    });
}

ThreadSampler::~ThreadSampler() {
    stop();
}

void ThreadSampler::sample(long self) {
    const int wanting = threadsWantingACore(self);
    if (wanting < 0) return;
    const int label = label_.load(std::memory_order_relaxed);
    for (ThreadSamples* counts : {&counts_, &byLabel_[label >= 0 && label < kLabels ? label : 0]}) {
        ++counts->samples;
        if (wanting == 0) ++counts->none;
        if (wanting == 1) ++counts->one;
    }
}

ThreadSamples ThreadSampler::stop() {
    stop_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
    return counts_;
}

}  // namespace neardup
