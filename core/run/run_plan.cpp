// The plan of a run and the look-up it is made from (run_plan.h).
#include "run_plan.h"

#include "checkpoint.h"
#include "lsh_buckets.h"
#include "rejected_lines.h"
#include "run_failures.h"
#include "run_state.h"
#include "signature_rows.h"

namespace neardup {

RunPlan planRun(const ProjectFacts& facts, const RunParams& params, int threads) {
    using Signatures = RunPlan::Signatures;
    RunPlan plan;
    if (!facts.datasetStored)
        plan.signatures = Signatures::ReadNew;
    else if (!facts.signaturesFit)
        plan.signatures =
            facts.signaturesStreamable ? Signatures::StreamFromCache : Signatures::ReadBeyondBudget;
    else if (facts.signaturesCached)
        plan.signatures = Signatures::FromCache;
    else
        plan.signatures = Signatures::ReadAgain;
    plan.resumeRead = plan.readsInputs() && facts.checkpointLeft;
    // Only a new dataset is saved while its pairs are compared: a stored one is already there,
    // and it is one project write too few to wait for on a single thread.
    plan.compareWhileSaving = plan.signatures == Signatures::ReadNew && threads >= 2;
    // A dataset new to the project has no earlier run, so no pairs to reuse.
    if (facts.datasetStored) plan.reusePairsOf = facts.reusablePairs;
    plan.verify = params.compare.verify != VerifyMode::None || plan.reusePairsOf.has_value();
    return plan;
}

namespace {

// For b x r chosen by NearDup: the newest earlier run whose b x r makes pairs at this run's
// threshold candidates at least as often as the chosen one does (its S-curve at the threshold
// at least as high), so its stored pairs serve this run without comparing again (a run at 0.7,
// then one at 0.85, reuses the first run's pairs). The run then takes that b x r, which is what
// its pairs came from and what it records.
std::optional<int64_t> adoptCoveringPairs(RunState& s) {
    const double threshold = s.params.compare.threshold;
    const double chosen = candidateProbability(threshold, s.params.lsh.bands, s.params.lsh.rows);
    for (const auto& source :
         s.store.pairSourcesAnyBandsRows(*s.datasetId, s.params, s.resolveBuckets(s.docs.size()))) {
        if (candidateProbability(threshold, source.bands, source.rows) < chosen - 1e-12) continue;
        s.params.lsh.bands = source.bands;
        s.params.lsh.rows = source.rows;
        s.run.params.lsh.bands = source.bands;
        s.run.params.lsh.rows = source.rows;
        return source.runId;
    }
    return std::nullopt;
}

// A dataset of the project read from exactly the reference's files, whose signatures are cached
// under this run's key: its rows stand for the reference's, which are then neither read nor
// signed again. Signatures that do not fit the budget beside its documents are streamed from
// their cache file (RunState::ReferenceSeed::cachedRows); a cache that cannot be opened or does
// not match the dataset is a miss, and the reference is read. Its rejected lines come with it
// (their full list from the sidecar folder, their details from its samples), so that this run's
// accounting, samples and list of rejected lines are those of a run that reads the reference;
// a dataset whose list is not there (a project copied without its sidecar folder) is read again
// instead. With --on-error fail, a reference with rejected lines is read again too: the read
// then fails on the first of them, as any run does.
std::optional<RunState::ReferenceSeed> findReferenceSeed(RunState& s) {
    const std::vector<InputFile> reference(s.files.begin(), s.files.begin() + s.referenceFiles);
    const std::optional<int64_t> id = s.store.findDataset(reference, s.params.reader);
    if (!id) return std::nullopt;
    RunState::ReferenceSeed seed;
    seed.datasetId = *id;
    seed.dataset = s.store.loadDataset(*id, &seed.docs);
    if (seed.dataset.files.size() != reference.size()) return std::nullopt;
    if (!seed.dataset.rejections.empty()) {
        std::vector<RejectedLine> rejected;
        if (s.params.reader.onError == OnError::Fail ||
            !rejected_lines::load(s.store, seed.dataset, rejected))
            return std::nullopt;
        seed.rejections = replayedRejections(rejected, seed.dataset.rejectionSamples);
    }
    if (s.memory.fitsInMemory(seed.docs, seed.docs.size())) {
        if (!s.store.loadSignatures(*id, s.cacheKey, seed.sigs)) return std::nullopt;
    } else {
        sigfile::OpenedRows rows;
        // A reference's rows stream into the spill's given prefix, which is one file: a cache
        // that leaves rows to another dataset's is read again instead (a reference that was
        // itself a run against a reference).
        if (!openSignatureFile(s.store, *id, s.cacheKey, seed.sigs, rows) || rows.sharedRows > 0)
            return std::nullopt;
        seed.cachedRows = std::move(rows);
    }
    if (seed.sigs.size() != seed.docs.size() || seed.sigs.hashes != s.params.signature.hashes)
        return std::nullopt;
    return seed;
}

// The stored dataset's signature cache file opened to be streamed: its digests and flags into
// the state's matrix (its values stay on disk), the file into state.cachedRows.
bool openCachedRows(RunState& s) {
    sigfile::OpenedRows rows;
    if (!openSignatureFile(s.store, *s.datasetId, s.cacheKey, s.sigs, rows) ||
        s.sigs.size() != s.docs.size() || s.sigs.hashes != s.params.signature.hashes) {
        s.sigs = SignatureMatrix{};
        return false;
    }
    s.cachedRows = std::move(rows);
    return true;
}

}  // namespace

ProjectFacts lookUpProject(RunState& s) {
    ProjectFacts facts;
    s.store.setThreads(s.run.threads);  // a large dataset's rows are read on the run's threads
    s.datasetId = s.store.findDataset(s.files, s.params.reader, s.referenceFiles);
    if (s.datasetId) {
        facts.datasetStored = true;
        s.dataset = s.store.loadDataset(*s.datasetId, &s.docs);
        s.files = s.dataset.files;  // as pinned when they were read: with their fingerprints
        failOnStoredRejections(s.store, s.run, *s.datasetId, s.dataset, s.docs.size());
        facts.signaturesFit = s.memory.fitsInMemory(s.docs, s.docs.size());
        if (facts.signaturesFit)
            facts.signaturesCached = s.store.loadSignatures(*s.datasetId, s.cacheKey, s.sigs) &&
                                     s.sigs.size() == s.docs.size() &&
                                     s.sigs.hashes == s.params.signature.hashes;
        else
            facts.signaturesStreamable = openCachedRows(s);
        facts.reusablePairs = s.params.lsh.chosen
                                  ? adoptCoveringPairs(s)
                                  : s.store.findReusablePairs(*s.datasetId, s.params,
                                                              s.resolveBuckets(s.docs.size()));
    }
    if (!s.datasetId && s.referenceFiles > 0) s.referenceSeed = findReferenceSeed(s);
    // Rows signed so far go to a checkpoint now and then, for a run killed while reading.
    s.checkpoint.emplace(sidecarDirectory(s.store.path()), s.files, s.params.reader, s.cacheKey,
                         s.params.signature.hashes);
    facts.checkpointLeft = s.checkpoint->left();
    return facts;
}

}  // namespace neardup
