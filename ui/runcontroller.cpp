#include "runcontroller.h"

#include <chrono>
#include <mutex>

#include "numbertext.h"
#include "run_service.h"

namespace neardup::ui {

namespace {

using Clock = std::chrono::steady_clock;

// Called from the pipeline's threads (TBB workers included); emits through the controller,
// whose signals are queued to the GUI thread.
class SignalObserver : public PipelineObserver {
  public:
    explicit SignalObserver(RunController* c) : c_(c) {}

    void phaseStarted(const std::string& phase) override {
        emit c_->phaseStarted(QString::fromStdString(phase));
    }
    void progress(const std::string& phase, uint64_t done, uint64_t total) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            const auto now = Clock::now();
            const bool last = total > 0 && done >= total;
            if (!last && now - lastEmit_ < std::chrono::milliseconds(100)) return;
            lastEmit_ = now;
        }
        emit c_->progress(QString::fromStdString(phase), done, total);
    }
    void phaseFinished(const PhaseTiming& t) override {
        emit c_->phaseFinished(QString::fromStdString(t.name), t.seconds, t.items, t.bytes,
                               t.reused);
    }
    void info(const std::string& message) override {
        emit c_->info(QString::fromStdString(message));
    }

  private:
    RunController* c_;
    std::mutex mutex_;
    Clock::time_point lastEmit_{};
};

}  // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
    thread_.setObjectName(QStringLiteral("neardup-run"));
    worker_ = new QObject;
    worker_->moveToThread(&thread_);
    thread_.start();
}

RunController::~RunController() {
    cancel_.store(true);
    thread_.quit();
    thread_.wait();
    delete worker_;
}

bool RunController::start(const RunRequest& request) {
    if (running_) return false;
    running_ = true;
    cancel_.store(false);
    emit started();
    QMetaObject::invokeMethod(
        worker_,
        [this, request] {
            SignalObserver observer(this);
            QString status = QStringLiteral("ok"), message;
            qint64 runId = 0;
            try {
                neardup::RunRequest run;
                run.project = request.project.toStdString();
                run.inputs = request.inputs;
                run.references = request.references;
                run.params = request.params;  // execution options included
                run.resumes = request.resumes;
                RunHooks hooks;
                hooks.observer = &observer;
                hooks.cancel = &cancel_;
                hooks.backendChosen = [this](const std::string& reason) {
                    emit backendChosen(QString::fromStdString(reason));
                };
                const RunResult r = executeRun(run, hooks);
                runId = r.runId;
                message = QStringLiteral("run %1: %2 documents, %3 clusters, %4 removed")
                              .arg(r.runId)
                              .arg(countText(r.counts.documents), countText(r.counts.clusters),
                                   countText(r.counts.removed));
            } catch (const Cancelled&) {
                status = QStringLiteral("interrupted");
                message = QStringLiteral("cancelled; the run is marked interrupted");
            } catch (const std::exception& e) {
                status = QStringLiteral("failed");
                message = QString::fromUtf8(e.what());
            }
            QMetaObject::invokeMethod(
                this,
                [this, status, runId, message] {
                    running_ = false;
                    emit finished(status, runId, message);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
    return true;
}

void RunController::cancel() {
    if (running_) cancel_.store(true);
}

}  // namespace neardup::ui
