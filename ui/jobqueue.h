// The one way the workbench works in the background. A JobQueue runs jobs one after another on
// a worker thread and delivers their results on the GUI thread. A job gets a JobContext with
// lazily opened connections to the current project: ProjectQueries (read-only) for the views, a
// read-only ProjectStore for whole-run loads and exports, and a writable one for what the
// workbench records (decisions) and for stale-run recovery. Results go back to a receiver
// object; a receiver deleted in the meantime simply never hears back. A view whose newer request
// replaces an older one (another selection, another page of a new listing) takes a ticket from
// its LatestRequest and submits with it: results of a replaced request are dropped.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "document_fetcher.h"
#include "project_queries.h"
#include "project_store.h"

namespace neardup::ui {

// Worker-thread state shared by the jobs of one queue. Only jobs touch it.
class JobContext {
  public:
    // The project the queue works on; changing it closes the old connections.
    void setProject(const std::string& path);
    const std::string& projectPath() const { return path_; }
    bool hasProject() const { return !path_.empty(); }
    ProjectQueries& queries();  // throws when no project is open
    // The project opened for reading only: what the views and exports load.
    const ProjectStore& reader();
    // The project opened for writing (created or upgraded as needed); runs of processes that
    // died are recovered when it opens.
    ProjectStore& store();
    // A fetcher for a dataset's documents, kept while the same dataset is asked for.
    DocumentFetcher& fetcher(int64_t datasetId);

  private:
    std::string path_;
    std::unique_ptr<ProjectQueries> queries_;
    std::unique_ptr<ProjectStore> reader_;
    std::unique_ptr<ProjectStore> store_;
    std::unique_ptr<DocumentFetcher> fetcher_;
    int64_t fetcherDataset_ = -1;
};

// "Latest request wins" for one kind of request of one view (GUI thread only). next() starts a
// request and replaces every earlier one; a Ticket stays current until then.
class LatestRequest {
  public:
    class Ticket {
      public:
        bool current() const { return counter_ && *counter_ == number_; }

      private:
        friend class LatestRequest;
        Ticket(std::shared_ptr<const quint64> counter, quint64 number)
            : counter_(std::move(counter)), number_(number) {}
        std::shared_ptr<const quint64> counter_;  // outlives the LatestRequest if need be
        quint64 number_ = 0;
    };

    // A new request: every earlier ticket stops being current.
    Ticket next() { return {counter_, ++*counter_}; }
    // The current request again, for a further part of it (the next page of the same listing).
    Ticket current() const { return {counter_, *counter_}; }
    // No request is current any more: what the earlier ones still deliver is dropped.
    void forget() { ++*counter_; }

  private:
    std::shared_ptr<quint64> counter_ = std::make_shared<quint64>(0);
};

class JobQueue : public QObject {
    Q_OBJECT
  public:
    explicit JobQueue(const QString& name, QObject* parent = nullptr,
                      QThread::Priority priority = QThread::InheritPriority);
    ~JobQueue() override;

    // Later jobs use `path` (empty: no project).
    void setProject(const QString& path);

    // Runs job(context) on the worker thread, then done(result) on the GUI thread if `receiver`
    // still exists. An exception from the job calls failed(message) instead.
    template <class R>
    void submit(QObject* receiver, std::function<R(JobContext&)> job, std::function<void(R)> done,
                std::function<void(const QString&)> failed = nullptr) {
        auto result = std::make_shared<R>();
        post(
            receiver, [job = std::move(job), result](JobContext& c) { *result = job(c); },
            [done = std::move(done), result] { done(std::move(*result)); }, std::move(failed));
    }

    // submit() for a request that a newer one may replace: done (and failed, when given) only
    // while `ticket` is still current when the result arrives.
    template <class R>
    void submit(QObject* receiver, LatestRequest::Ticket ticket, std::function<R(JobContext&)> job,
                std::function<void(R)> done, std::function<void(const QString&)> failed = nullptr) {
        std::function<void(const QString&)> failedIfCurrent;
        if (failed)
            failedIfCurrent = [ticket, failed = std::move(failed)](const QString& e) {
                if (ticket.current()) failed(e);
            };
        submit<R>(
            receiver, std::move(job),
            [ticket, done = std::move(done)](R r) {
                if (ticket.current()) done(std::move(r));
            },
            std::move(failedIfCurrent));
    }

    // From a running job: calls update() on the GUI thread if `receiver` still exists (progress).
    void report(QObject* receiver, std::function<void()> update);

    // Jobs submitted and not yet delivered.
    int pending() const { return pending_.load(); }

  signals:
    void busyChanged(bool busy);
    void jobFailed(const QString& message);

  private:
    void post(QObject* receiver, std::function<void(JobContext&)> work,
              std::function<void()> deliver, std::function<void(const QString&)> failed);
    void delivered();

    QThread thread_;
    QObject* worker_ = nullptr;  // lives in thread_
    JobContext context_;         // touched on thread_ only
    std::atomic<int> pending_{0};
};

}  // namespace neardup::ui
