// The clusters panel's text search: the texts of the run's clustered documents are read back
// from the input files on a thread of their own, with progress and a stop button.
#include "clusterspanel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>

#include <QThread>
#include "clustersmodel.h"
#include "comparisonview.h"
#include "jobqueue.h"

namespace neardup::ui {

namespace {

// What a text search reads: the clustered documents and where the dataset's files are.
struct SearchInput {
    std::vector<std::pair<uint32_t, DocumentLocation>> documents;
    DatasetSource source;
};

}  // namespace

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
    const int serial = ++searchSerial_;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    searchCancel_ = cancel;
    searchStatus_->setText(tr("Listing the clustered documents\u2026"));
    searchProgress_->setRange(0, 0);
    searchProgress_->show();
    stopSearch_->show();
    const qint64 runId = run_.runId;
    const int64_t datasetId = run_.datasetId;
    jobs_->submit<std::shared_ptr<SearchInput>>(
        this,
        [runId, datasetId](JobContext& ctx) {
            auto in = std::make_shared<SearchInput>();
            in->documents = ctx.queries().clusteredDocuments(runId);
            in->source = ctx.queries().datasetSource(datasetId);
            return in;
        },
        [this, serial, cancel, needle](std::shared_ptr<SearchInput> in) {
            if (serial != searchSerial_) return;
            if (cancel->load()) {
                searchProgress_->hide();
                stopSearch_->hide();
                searchStatus_->setText(tr("Text search stopped."));
                return;
            }
            const quint64 total = in->documents.size();
            searchProgress_->setRange(0, 1000);
            searchProgress_->setValue(0);
            searchStatus_->setText(tr("Searching %1 documents\u2026").arg(total));
            // Reading the texts back may take a while on a large run: a thread of its own, so
            // that the queries behind the table keep flowing. It reports through queued calls.
            QThread* thread = QThread::create([this, serial, cancel, in, needle] {
                TextSearchResult r;
                std::string error;
                try {
                    DocumentFetcher fetcher(in->source.files, in->source.reader);
                    r = searchTexts(
                        fetcher, in->documents, needle.toStdString(),
                        [this, serial, cancel](uint64_t done, uint64_t all) {
                            if (cancel->load()) return false;
                            if (done % 4096 == 0 || done == all)
                                QMetaObject::invokeMethod(
                                    this,
                                    [this, serial, done, all] {
                                        if (serial == searchSerial_ && all > 0)
                                            searchProgress_->setValue(int(done * 1000 / all));
                                    },
                                    Qt::QueuedConnection);
                            return true;
                        });
                } catch (const std::exception& e) {
                    error = e.what();
                }
                auto matches = std::make_shared<const std::vector<uint32_t>>(std::move(r.matches));
                QMetaObject::invokeMethod(
                    this,
                    [this, serial, matches, error, r] {
                        if (serial != searchSerial_) return;
                        searchProgress_->hide();
                        stopSearch_->hide();
                        if (!error.empty()) {
                            searchStatus_->setText(
                                tr("Text search failed: %1").arg(QString::fromStdString(error)));
                            return;
                        }
                        QString text = r.cancelled
                                           ? tr("Stopped after %1 documents: %2 match so far")
                                                 .arg(r.searched)
                                                 .arg(matches->size())
                                           : tr("%1 of %2 clustered documents match")
                                                 .arg(matches->size())
                                                 .arg(r.searched);
                        if (r.unreadable)
                            text += tr(" (%1 could not be read back)").arg(r.unreadable);
                        searchStatus_->setText(text);
                        model_->setDocumentFilter(matches);
                        emit textSearchFinished(matches->size());
                    },
                    Qt::QueuedConnection);
            });
            connect(thread, &QThread::finished, thread, &QObject::deleteLater);
            searchThread_ = thread;
            thread->start(QThread::LowPriority);
        },
        [this, serial](const QString& e) {
            if (serial != searchSerial_) return;
            searchProgress_->hide();
            stopSearch_->hide();
            searchStatus_->setText(tr("Text search failed: %1").arg(e));
        });
}

void ClustersPanel::stopTextSearch() {
    // The search reports what it found so far; its thread ends at its next document.
    if (searchCancel_) searchCancel_->store(true);
}

void ClustersPanel::abandonTextSearch() {
    if (searchCancel_) searchCancel_->store(true);
    ++searchSerial_;  // whatever it still reports is dropped
    searchProgress_->hide();
    stopSearch_->hide();
}

}  // namespace neardup::ui
