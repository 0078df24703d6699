// JobQueue and JobContext (jobqueue.h): the worker thread, the project's connections, delivery.
#include "jobqueue.h"

#include <exception>

namespace neardup::ui {

void JobContext::setProject(const std::string& path) {
    if (path == path_) return;
    fetcher_.reset();
    fetcherDataset_ = -1;
    queries_.reset();
    reader_.reset();
    store_.reset();
    path_ = path;
}

ProjectQueries& JobContext::queries() {
    if (path_.empty()) throw std::runtime_error("no project is open");
    if (!queries_) queries_ = std::make_unique<ProjectQueries>(path_);
    return *queries_;
}

const ProjectStore& JobContext::reader() {
    if (path_.empty()) throw std::runtime_error("no project is open");
    if (!reader_) {
        try {
            reader_ = std::make_unique<ProjectStore>(path_, ProjectStore::Mode::ReadOnly);
        } catch (const StoreError&) {
            // A project of an older schema is upgraded by opening it for writing once.
            store();
            reader_ = std::make_unique<ProjectStore>(path_, ProjectStore::Mode::ReadOnly);
        }
    }
    return *reader_;
}

ProjectStore& JobContext::store() {
    if (path_.empty()) throw std::runtime_error("no project is open");
    if (!store_) {
        store_ = std::make_unique<ProjectStore>(path_);
        store_->recoverStaleRuns();
    }
    return *store_;
}

DocumentFetcher& JobContext::fetcher(int64_t datasetId) {
    if (!fetcher_ || fetcherDataset_ != datasetId) {
        const DatasetSource src = queries().datasetSource(datasetId);
        fetcher_ = std::make_unique<DocumentFetcher>(src.files, src.reader);
        fetcherDataset_ = datasetId;
    }
    return *fetcher_;
}

JobQueue::JobQueue(const QString& name, QObject* parent, QThread::Priority priority)
    : QObject(parent) {
    thread_.setObjectName(name);
    worker_ = new QObject;
    worker_->moveToThread(&thread_);
    thread_.start(priority);
}

JobQueue::~JobQueue() {
    // A job in progress finishes first; its result is dropped with this object.
    thread_.quit();
    thread_.wait();
    delete worker_;  // its thread has stopped, so deleting it here is safe
}

void JobQueue::setProject(const QString& path) {
    const std::string p = path.toStdString();
    post(
        this, [p](JobContext& c) { c.setProject(p); }, [] {}, nullptr);
}

void JobQueue::post(QObject* receiver, std::function<void(JobContext&)> work,
                    std::function<void()> deliver, std::function<void(const QString&)> failed) {
    if (pending_++ == 0) emit busyChanged(true);
    QPointer<QObject> target(receiver);
    QMetaObject::invokeMethod(
        worker_,
        [this, target, work = std::move(work), deliver = std::move(deliver),
         failed = std::move(failed)]() mutable {
            QString error;
            try {
                work(context_);
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
                if (error.isEmpty()) error = QStringLiteral("unknown error");
            }
            // Back on the GUI thread; the receiver is checked there, where it lives.
            QMetaObject::invokeMethod(
                this,
                [this, target, error, deliver = std::move(deliver), failed = std::move(failed)] {
                    if (target) {
                        if (error.isEmpty())
                            deliver();
                        else if (failed)
                            failed(error);
                        else
                            emit jobFailed(error);
                    }
                    delivered();
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void JobQueue::report(QObject* receiver, std::function<void()> update) {
    // Through this object, which lives on the GUI thread; the receiver is checked there.
    QMetaObject::invokeMethod(
        this,
        [target = QPointer<QObject>(receiver), update = std::move(update)] {
            if (target) update();
        },
        Qt::QueuedConnection);
}

void JobQueue::delivered() {
    if (--pending_ == 0) emit busyChanged(false);
}

}  // namespace neardup::ui
