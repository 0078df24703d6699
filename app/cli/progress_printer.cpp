#include "progress_printer.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>

#include "run_result.h"

namespace neardup::cli {

using Clock = std::chrono::steady_clock;

ProgressPrinter::ProgressPrinter(bool quiet) : live_(::isatty(STDERR_FILENO) != 0), quiet_(quiet) {}

void ProgressPrinter::phaseStarted(const std::string& /*phase*/) {
    phaseStart_ = Clock::now();
    lastPrint_ = {};
}

void ProgressPrinter::progress(const std::string& phase, uint64_t done, uint64_t total) {
    if (!live_ || quiet_) return;
    const auto now = Clock::now();
    if (now - lastPrint_ < std::chrono::milliseconds(200)) return;
    lastPrint_ = now;
    const double elapsed = std::chrono::duration<double>(now - phaseStart_).count();
    const bool bytes = phase == "read" || phase == "signatures";
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::string eta;
    if (total > 0 && rate > 0 && done <= total)
        eta = fmt::format(", ETA {:.0f} s", static_cast<double>(total - done) / rate);
    if (bytes && total)
        fmt::print(stderr, "\r{:<12} {:9.1f} / {:.1f} MB ({:5.1f}%)  {:7.1f} MB/s{}   ", phase,
                   static_cast<double>(done) / 1e6, static_cast<double>(total) / 1e6,
                   100.0 * static_cast<double>(done) / static_cast<double>(total), rate / 1e6, eta);
    else if (bytes)
        fmt::print(stderr, "\r{:<12} {:9.1f} MB  {:7.1f} MB/s   ", phase,
                   static_cast<double>(done) / 1e6, rate / 1e6);
    else
        fmt::print(stderr, "\r{:<12} {}/{}{}   ", phase, done, total, eta);
    lineOpen_ = true;
}

void ProgressPrinter::phaseFinished(const PhaseTiming& t) {
    if (quiet_) return;
    if (lineOpen_) std::fputs("\r\033[K", stderr);
    lineOpen_ = false;
    if (t.reused) {
        fmt::print(stderr, "{:<12} reused from the project\n", t.name);
        return;
    }
    fmt::print(stderr, "{:<12} {:8.3f} s", t.name, t.seconds);
    if (!showsRates(t.seconds)) {
        std::fputc('\n', stderr);
        return;
    }
    if (t.bytes)
        fmt::print(stderr, "  {:8.1f} MB/s", static_cast<double>(t.bytes) / 1e6 / t.seconds);
    if (t.items) fmt::print(stderr, "  {:10.0f} items/s", static_cast<double>(t.items) / t.seconds);
    std::fputc('\n', stderr);
}

void ProgressPrinter::info(const std::string& message) {
    // Warnings are not progress: -q does not silence them.
    if (quiet_ && message.rfind("warning:", 0) != 0) return;
    if (lineOpen_) std::fputs("\r\033[K", stderr);
    lineOpen_ = false;
    fmt::print(stderr, "{}\n", message);
}

}  // namespace neardup::cli
