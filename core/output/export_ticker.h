// Progress and cancellation of an export, looked at every few thousand documents (no
// per-document call); shared by the writers of the export's outputs.
#pragma once

#include <algorithm>
#include <cstdint>

#include "exporter.h"

namespace neardup {

class ExportTicker {
  public:
    static constexpr uint64_t kEvery = 4096;
    ExportTicker(const ExportOptions& o, uint64_t total) : o_(o), total_(total) {}
    // Counts `docs` more documents done; reports and checks the cancel flag now and then.
    void advance(uint64_t docs) {
        done_ += docs;
        if (done_ - last_ >= kEvery) tick();
    }
    void tick() {
        last_ = done_;
        if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) throw ExportCancelled();
        if (o_.progress) o_.progress(std::min(done_, total_), total_);
    }

  private:
    const ExportOptions& o_;
    uint64_t total_, done_ = 0, last_ = 0;
};

}  // namespace neardup
