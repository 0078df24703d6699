// Bucket members (bucket_members.h): band keys recomputed from a run's cached signatures.
#include "bucket_members.h"

#include "params.h"
#include "project_store.h"

namespace neardup {

bool BandKeyTable::load(const ProjectStore& store, int64_t runId, Backend& backend) {
    *this = BandKeyTable{};
    runId_ = runId;
    // The run's LSH settings, from its row (the store's one decoder of it).
    const RunRow row = store.runRow(runId);
    const RunResult& run = row.run;
    const LshParams& lsh = run.params.lsh;
    const int hashes = run.params.signature.hashes;
    datasetId_ = run.datasetId;
    if (run.status != "ok") {
        why_ = "run " + std::to_string(runId) + " is " + run.status + ", not finished";
        return false;
    }
    if (lsh.bands <= 0 || lsh.rows <= 0 || static_cast<int64_t>(lsh.bands) * lsh.rows > hashes) {
        why_ = "run " + std::to_string(runId) + " has no valid band layout";
        return false;
    }
    // The keys come from every document's signature, held whole: a run whose signatures
    // exceeded its memory budget (it spilled, and its cache was copied from the spill files)
    // would exceed it here too, in the workbench's process.
    if (run.spilled) {
        why_ =
            "the run's signatures exceeded its memory budget (they went to spill files), and "
            "this view recomputes the band keys from all of them in memory. A run with a larger "
            "memory budget lists its buckets' members.";
        return false;
    }
    SignatureMatrix sigs;
    if (!store.loadSignatures(run.datasetId, row.signatureKey, sigs) || sigs.hashes != hashes) {
        why_ = "the run's signatures are not in the project's cache (the " + store.path() +
               ".d directory is missing or was cleared). Running again with the same signature "
               "parameters caches them.";
        return false;
    }
    bands_ = lsh.bands;
    keys_.resize(sigs.size() * static_cast<std::size_t>(bands_));
    backend.computeBandKeys(sigs, lsh, run.resolvedBuckets, keys_.data());
    eligible_ = std::move(sigs.eligible);
    return true;
}

std::vector<uint32_t> BandKeyTable::members(int band, uint64_t key) const {
    std::vector<uint32_t> out;
    if (band < 0 || band >= bands_) return out;
    const std::size_t stride = static_cast<std::size_t>(bands_);
    const uint64_t* k = keys_.data() + band;
    const std::size_t n = eligible_.size();
    for (std::size_t i = 0; i < n; ++i, k += stride)
        if (*k == key && eligible_[i]) out.push_back(static_cast<uint32_t>(i));
    return out;
}

}  // namespace neardup
