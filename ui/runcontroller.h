// Runs the pipeline on a worker thread and reports its progress to the GUI as queued signals.
// Progress inside a phase is throttled to about ten updates a second; phase starts and ends are
// always delivered. Cancel raises the flag the pipeline polls.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <string>
#include <vector>

#include "params.h"

namespace neardup::ui {

struct RunRequest {
    QString project;
    std::vector<std::string> inputs;
    // Files or folders the inputs are deduplicated against (`neardup run --reference`).
    std::vector<std::string> references;
    RunParams params;
    qint64 resumes = 0;  // the unfinished run this one runs again (Resume), else 0
};

class RunController : public QObject {
    Q_OBJECT
  public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // Returns false (and does nothing) while a run is in progress.
    bool start(const RunRequest& request);
    void cancel();
    bool isRunning() const { return running_; }

  signals:
    void started();
    void phaseStarted(const QString& phase);
    void progress(const QString& phase, quint64 done, quint64 total);
    void phaseFinished(const QString& phase, double seconds, quint64 items, quint64 bytes,
                       bool reused);
    void info(const QString& message);
    // The backend a run uses and why ("cpu: no usable GPU: ..."), once at its start.
    void backendChosen(const QString& reason);
    // status: ok, interrupted or failed; runId 0 when the run was never recorded.
    void finished(const QString& status, qint64 runId, const QString& message);

  private:
    QThread thread_;
    QObject* worker_ = nullptr;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
};

}  // namespace neardup::ui
