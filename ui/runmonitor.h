// Live view of a run: one row per phase with a progress bar, elapsed time, throughput and ETA,
// a log of the engine's messages, and Cancel.
#pragma once

#include <QElapsedTimer>
#include <QMap>
#include <QWidget>

class QGridLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace neardup::ui {

class ElidedLabel;

class RunController;

class RunMonitor : public QWidget {
    Q_OBJECT
  public:
    explicit RunMonitor(RunController* run, QWidget* parent = nullptr);

    QPushButton* cancelButton() const { return cancel_; }
    // "running", "done", "reused" or "" for a phase, for tests and the status bar.
    QString phaseState(const QString& phase) const;
    QStringList phases() const { return order_; }
    QString statusText() const;
    // A phase's ETA as shown ("" when none), the backend line and the log, for tests.
    QString phaseEta(const QString& phase) const;
    QString backendText() const;
    QString logText() const;

  private:
    struct Row {
        QLabel* name = nullptr;
        QProgressBar* bar = nullptr;
        QLabel* elapsed = nullptr;
        QLabel* rate = nullptr;
        QLabel* eta = nullptr;
        QElapsedTimer clock;
        quint64 done = 0, total = 0;
        QString state;
    };

    void onStarted();
    void onPhaseStarted(const QString& phase);
    void onProgress(const QString& phase, quint64 done, quint64 total);
    void onPhaseFinished(const QString& phase, double seconds, quint64 items, quint64 bytes,
                         bool reused);
    void onFinished(const QString& status, qint64 runId, const QString& message);
    void onBackendChosen(const QString& reason);
    void onCancel();
    void tick();
    Row& row(const QString& phase);
    void log(const QString& line);

    RunController* run_;
    QGridLayout* grid_;
    QMap<QString, Row> rows_;
    QStringList order_;
    ElidedLabel* status_;
    // The backend of the run: shown above the phases, logged only when it changed since the
    // previous run (it is the same line run after run).
    ElidedLabel* backend_;
    QString lastBackend_;
    bool cancelling_ = false;  // Cancel pressed: no ETA, the status says so
    QPlainTextEdit* log_;
    QPushButton* cancel_;
    QTimer* timer_;
    QElapsedTimer total_;
};

}  // namespace neardup::ui
