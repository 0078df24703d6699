// Reading a pair of documents back for the side-by-side view (comparisonloader.h).
#include "comparisonloader.h"

#include <QStringList>
#include <utility>

#include "document_pair.h"

namespace neardup::ui {

namespace {

// Ids of a few hundred characters are shortened in the middle inside a status line.
QString shortened(const std::string& id) {
    constexpr qsizetype kMax = 48;
    const QString s = QString::fromStdString(id);
    return s.size() <= kMax ? s
                            : s.left(kMax / 2 - 1) + QStringLiteral("\u2026") + s.right(kMax / 2);
}

QString memberStatus(const ClusterMember& m, const std::string* witnessId) {
    if (m.reference) return QObject::tr("reference");
    if (m.representative) return QObject::tr("kept");
    if (m.keptWhole) return QObject::tr("kept (keep all)");
    if (m.kept) return QObject::tr("kept (no kept duplicate before it)");
    if (witnessId) return QObject::tr("removed (for %1)").arg(shortened(*witnessId));
    return QObject::tr("removed (for document %1)").arg(m.removedFor);
}

// The standing as the members list words it; unchanged when the document is not among the
// members read.
void wordStanding(const ClusterStanding& s, QString& status) {
    if (s.cluster < 0)
        status = QObject::tr("in no cluster");
    else if (s.member)
        status = memberStatus(*s.member, s.witnessId ? &*s.witnessId : nullptr);
}

}  // namespace

QString memberStatus(const ClusterMember& m, const std::vector<ClusterMember>& members) {
    if (m.removedFor >= 0)
        for (const ClusterMember& w : members)
            if (w.docIndex == uint32_t(m.removedFor)) return memberStatus(m, &w.docId);
    return memberStatus(m, nullptr);
}

void loadStatuses(JobContext& ctx, const RunInfo& run, ComparisonData& d) {
    wordStanding(clusterStanding(ctx.queries(), run.runId, d.docA), d.statusA);
    wordStanding(clusterStanding(ctx.queries(), run.runId, d.docB), d.statusB);
}

ComparisonData loadComparison(JobContext& ctx, const RunInfo& run, const PairRow& pair,
                              bool stored) {
    PairToLoad request;
    request.pair = pair;
    // A reference document goes on the left, the new one on the right (a pair in document
    // order has it there already: the reference's documents come first).
    if (run.reference(pair.b) && !run.reference(pair.a)) std::swap(request.pair.a, request.pair.b);
    request.stored = stored;
    DocumentPair p = loadDocumentPair(ctx.queries(), ctx.fetcher(run.datasetId), run, request);
    ComparisonData d;
    d.docA = p.a.doc;
    d.docB = p.b.doc;
    d.notDuplicate = p.notDuplicate;
    d.referenceA = run.reference(d.docA);
    d.referenceB = run.reference(d.docB);
    d.hashes = p.hashes;
    d.matches = p.matches;
    d.estimated = p.estimated;
    d.idA = QString::fromStdString(p.a.id);
    d.idB = QString::fromStdString(p.b.id);
    d.errorA = QString::fromStdString(p.a.error);
    d.errorB = QString::fromStdString(p.b.error);
    d.exact = p.exact;
    d.exactStored = p.exactStored;
    d.textA = std::move(p.a.text);
    d.textB = std::move(p.b.text);
    d.shortenedA = p.a.shortened;
    d.shortenedB = p.b.shortened;
    d.diff = std::move(p.diff);
    QStringList ignored;
    if (p.compared.lowercase) ignored << QObject::tr("case");
    ignored << QObject::tr("spacing");
    if (p.compared.nfc) ignored << QObject::tr("Unicode composition");
    d.diffBasis =
        QObject::tr("ignoring %1, as the run matched").arg(ignored.join(QStringLiteral(", ")));
    return d;
}

}  // namespace neardup::ui
