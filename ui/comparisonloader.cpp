// Reading a pair of documents back for the side-by-side view (comparisonloader.h).
#include "comparisonloader.h"

#include <QStringList>
#include <cmath>

#include "document_fetcher.h"

namespace neardup::ui {

namespace {

// Very long documents are shown shortened: the diff and the text widget stay responsive.
constexpr std::size_t kDisplayBytes = 200 * 1024;

bool shorten(std::string& s) {
    if (s.size() <= kDisplayBytes) return false;
    std::size_t cut = kDisplayBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    s.resize(cut);
    return true;
}

// As many members as the clusters panel lists of a giant cluster.
constexpr uint64_t kMaxMembersRead = 5000;

// Ids of a few hundred characters are shortened in the middle inside a status line.
QString shortened(const std::string& id) {
    constexpr qsizetype kMax = 48;
    const QString s = QString::fromStdString(id);
    return s.size() <= kMax ? s
                            : s.left(kMax / 2 - 1) + QStringLiteral("\u2026") + s.right(kMax / 2);
}

}  // namespace

QString memberStatus(const ClusterMember& m, const std::vector<ClusterMember>& members) {
    if (m.representative) return QObject::tr("kept");
    if (m.keptWhole) return QObject::tr("kept (keep all)");
    if (m.kept) return QObject::tr("kept (no kept duplicate before it)");
    for (const ClusterMember& w : members)
        if (m.removedFor >= 0 && w.docIndex == uint32_t(m.removedFor))
            return QObject::tr("removed (for %1)").arg(shortened(w.docId));
    return QObject::tr("removed (for document %1)").arg(m.removedFor);
}

void loadStatuses(JobContext& ctx, const RunInfo& run, ComparisonData& d) {
    for (auto [doc, status] : {std::pair{d.docA, &d.statusA}, std::pair{d.docB, &d.statusB}}) {
        const int64_t cluster = ctx.queries().clusterOfDocument(run.runId, doc);
        if (cluster < 0) {
            *status = QObject::tr("in no cluster");
            continue;
        }
        const std::vector<ClusterMember> members =
            ctx.queries().clusterMembers(run.runId, cluster, kMaxMembersRead);
        for (const ClusterMember& m : members)
            if (m.docIndex == doc) *status = memberStatus(m, members);
    }
}

ComparisonData loadComparison(JobContext& ctx, const RunInfo& run, const PairRow& pair,
                              bool stored) {
    ComparisonData d;
    d.docA = pair.a;
    d.docB = pair.b;
    d.notDuplicate = pair.notDuplicate;
    d.hashes = run.params.signature.hashes;
    d.matches = pair.matches;
    d.estimated = stored ? pair.estimated : std::nan("");
    ProjectQueries& q = ctx.queries();
    DocumentFetcher& f = ctx.fetcher(run.datasetId);
    const std::string storedA = q.documentId(run.datasetId, pair.a);
    const std::string storedB = q.documentId(run.datasetId, pair.b);
    const FetchedDocument x = f.fetch(q.documentLocation(run.datasetId, pair.a), storedA);
    const FetchedDocument y = f.fetch(q.documentLocation(run.datasetId, pair.b), storedB);
    d.idA = QString::fromStdString(x.ok ? x.id : storedA);
    d.idB = QString::fromStdString(y.ok ? y.id : storedB);
    d.errorA = QString::fromStdString(x.error);
    d.errorB = QString::fromStdString(y.error);
    if (x.ok && y.ok) {
        d.exactStored = stored && !std::isnan(pair.exact);
        d.exact =
            d.exactStored ? pair.exact : exactTextJaccard(x.text, y.text, run.params.signature);
    } else {
        d.exact = std::nan("");
    }
    d.textA = x.text;
    d.textB = y.text;
    d.shortenedA = shorten(d.textA);
    d.shortenedB = shorten(d.textB);
    // Words are compared as the run's matcher saw them, so that a copy that only changed case
    // or spacing shows as equal.
    const NormalizeOptions& normalize = run.params.signature.normalize;
    d.diff = diffWords(d.textA, d.textB, normalize);
    QStringList ignored;
    if (normalize.lowercase) ignored << QObject::tr("case");
    ignored << QObject::tr("spacing");
    if (normalize.nfc) ignored << QObject::tr("Unicode composition");
    d.diffBasis =
        QObject::tr("ignoring %1, as the run matched").arg(ignored.join(QStringLiteral(", ")));
    return d;
}

}  // namespace neardup::ui
