// The clusters panel's text search: the texts of the run's clustered documents are read back
// from the input files on the panel's search queue (a JobQueue of its own), with progress and a
// stop button.
#include "clusterspanel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>

#include "clustersmodel.h"
#include "comparisonview.h"
#include "jobqueue.h"
#include "numbertext.h"

namespace neardup::ui {

// What a text search reads: the clustered documents and where the dataset's files are.
struct ClustersPanel::SearchInput {
    std::vector<std::pair<uint32_t, DocumentLocation>> documents;
    DatasetSource source;
};

// ---- Text search --------------------------------------------------------------------------

void ClustersPanel::startTextSearch() {
    abandonTextSearch();
    const QString needle = search_->text().trimmed();
    if (!run_.runId) return;
    if (needle.isEmpty()) {
        searchStatus_->clear();
        model_->setDocumentFilter(nullptr);
        return;
    }
    const LatestRequest::Ticket ticket = latestSearch_.next();
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    searchCancel_ = cancel;
    searchStatus_->setText(tr("Listing the clustered documents\u2026"));
    searchProgress_->setRange(0, 0);
    searchProgress_->show();
    stopSearch_->show();
    const qint64 runId = run_.runId;
    const int64_t datasetId = run_.datasetId;
    const auto failed = [this](const QString& e) {
        searchProgress_->hide();
        stopSearch_->hide();
        searchStatus_->setText(tr("Text search failed: %1").arg(e));
    };
    jobs_->submit<std::shared_ptr<SearchInput>>(
        this, ticket,
        [runId, datasetId](JobContext& ctx) {
            auto in = std::make_shared<SearchInput>();
            in->documents = ctx.queries().clusteredDocuments(runId);
            in->source = ctx.queries().datasetSource(datasetId);
            return in;
        },
        [this, ticket, cancel, needle, failed](std::shared_ptr<SearchInput> in) {
            if (cancel->load()) {
                searchProgress_->hide();
                stopSearch_->hide();
                searchStatus_->setText(tr("Text search stopped."));
                return;
            }
            const quint64 total = in->documents.size();
            searchProgress_->setRange(0, 1000);
            searchProgress_->setValue(0);
            searchStatus_->setText(tr("Searching %1 documents\u2026").arg(countText(total)));
            searchTextsOf(in, needle, ticket, cancel, failed);
        },
        failed);
}

void ClustersPanel::searchTextsOf(std::shared_ptr<const SearchInput> in, const QString& needle,
                                  const LatestRequest::Ticket& ticket,
                                  std::shared_ptr<std::atomic<bool>> cancel,
                                  std::function<void(const QString&)> failed) {
    // Reading the texts back may take a while on a large run: on the search's own queue, so
    // that the queries behind the table keep flowing.
    JobQueue* queue = searches_;
    searches_->submit<TextSearchResult>(
        this, ticket,
        [this, queue, in, needle = needle.toStdString(), ticket, cancel](JobContext&) {
            DocumentFetcher fetcher(in->source.files, in->source.reader);
            return searchTexts(fetcher, in->documents, needle,
                               [this, queue, ticket, cancel](uint64_t done, uint64_t all) {
                                   if (cancel->load()) return false;
                                   if (done % 4096 == 0 || done == all)
                                       queue->report(this, [this, ticket, done, all] {
                                           if (ticket.current() && all > 0)
                                               searchProgress_->setValue(int(done * 1000 / all));
                                       });
                                   return true;
                               });
        },
        [this](TextSearchResult r) {
            searchProgress_->hide();
            stopSearch_->hide();
            auto matches = std::make_shared<const std::vector<uint32_t>>(std::move(r.matches));
            QString text = r.cancelled
                               ? tr("Stopped after %1 documents: %2 match so far")
                                     .arg(countText(r.searched), countText(matches->size()))
                               : tr("%1 of %2 clustered documents match")
                                     .arg(countText(matches->size()), countText(r.searched));
            if (r.unreadable)
                text += tr(" (%1 could not be read back)").arg(countText(r.unreadable));
            searchStatus_->setText(text);
            model_->setDocumentFilter(matches);
            emit textSearchFinished(matches->size());
        },
        std::move(failed));
}

void ClustersPanel::stopTextSearch() {
    // The search reports what it found so far; its job ends at its next document.
    if (searchCancel_) searchCancel_->store(true);
}

void ClustersPanel::abandonTextSearch() {
    if (searchCancel_) searchCancel_->store(true);
    latestSearch_.forget();  // whatever it still reports is dropped
    searchProgress_->hide();
    stopSearch_->hide();
}

}  // namespace neardup::ui
