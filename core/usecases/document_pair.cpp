// Loading a pair of documents for the side-by-side view (document_pair.h).
#include "document_pair.h"

#include <cmath>

namespace neardup {

namespace {

bool shorten(std::string& s) {
    if (s.size() <= kPairDisplayBytes) return false;
    std::size_t cut = kPairDisplayBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    s.resize(cut);
    return true;
}

FetchedDocument readBack(ProjectQueries& q, DocumentFetcher& f, int64_t datasetId, uint32_t doc,
                         PairDocument& out) {
    const std::string stored = q.documentId(datasetId, doc);
    FetchedDocument d = f.fetch(q.documentLocation(datasetId, doc), stored);
    out.doc = doc;
    out.id = d.ok ? d.id : stored;
    out.error = d.error;
    return d;
}

}  // namespace

ClusterStanding clusterStanding(ProjectQueries& queries, int64_t runId, uint32_t doc) {
    ClusterStanding s;
    s.cluster = queries.clusterOfDocument(runId, doc);
    if (s.cluster < 0) return s;
    const std::vector<ClusterMember> members =
        queries.clusterMembers(runId, s.cluster, kStandingMembersRead);
    for (const ClusterMember& m : members)
        if (m.docIndex == doc) s.member = m;
    if (s.member && s.member->removedFor >= 0)
        for (const ClusterMember& w : members)
            if (w.docIndex == uint32_t(s.member->removedFor)) {
                s.witnessId = w.docId;
                break;
            }
    return s;
}

DocumentPair loadDocumentPair(ProjectQueries& queries, DocumentFetcher& fetcher, const RunInfo& run,
                              const PairToLoad& request) {
    const PairRow& pair = request.pair;
    DocumentPair d;
    d.notDuplicate = pair.notDuplicate;
    d.hashes = run.params.signature.hashes;
    d.matches = pair.matches;
    d.estimated = request.stored ? pair.estimated : std::nan("");
    const FetchedDocument x = readBack(queries, fetcher, run.datasetId, pair.a, d.a);
    const FetchedDocument y = readBack(queries, fetcher, run.datasetId, pair.b, d.b);
    if (x.ok && y.ok) {
        d.exactStored = request.stored && !std::isnan(pair.exact);
        d.exact =
            d.exactStored ? pair.exact : exactTextJaccard(x.text, y.text, run.params.signature);
    }
    d.a.text = x.text;
    d.b.text = y.text;
    d.a.shortened = shorten(d.a.text);
    d.b.shortened = shorten(d.b.text);
    // Words are compared as the run's matcher saw them, so that a copy that only changed case
    // or spacing shows as equal.
    d.compared = run.params.signature.normalize;
    d.diff = diffWords(d.a.text, d.b.text, d.compared);
    if (request.standings) {
        d.a.standing = clusterStanding(queries, run.runId, pair.a);
        d.b.standing = clusterStanding(queries, run.runId, pair.b);
    }
    return d;
}

}  // namespace neardup
