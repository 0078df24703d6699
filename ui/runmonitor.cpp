#include "runmonitor.h"

#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>

#include "elidedlabel.h"
#include "numbertext.h"
#include "run_result.h"
#include "runcontroller.h"

namespace neardup::ui {

namespace {

bool countsBytes(const QString& phase) {
    return phase == QLatin1String("read") || phase == QLatin1String("signatures");
}

QString formatSeconds(double s) {
    if (s < 60) return QStringLiteral("%1 s").arg(s, 0, 'f', 1);
    return QStringLiteral("%1 min %2 s").arg(int(s) / 60).arg(int(s) % 60);
}

QString formatRate(const QString& phase, double perSecond) {
    if (countsBytes(phase)) return rateText(perSecond / 1e6, QStringLiteral("MB/s"), 1);
    const QString unit = phase == QLatin1String("compare") || phase == QLatin1String("buckets")
                             ? QObject::tr("bands/s")
                             : QObject::tr("items/s");
    return rateText(perSecond, unit, perSecond < 100 ? 1 : 0);
}

}  // namespace

RunMonitor::RunMonitor(RunController* run, QWidget* parent) : QWidget(parent), run_(run) {
    // One line, elided: a failed run's message can be long (paths); the tooltip has it whole.
    status_ = new ElidedLabel(tr("No run in progress."));
    status_->setObjectName(QStringLiteral("runStatus"));
    cancel_ = new QPushButton(tr("Cancel run"));
    cancel_->setObjectName(QStringLiteral("cancelButton"));
    cancel_->setEnabled(false);
    connect(cancel_, &QPushButton::clicked, this, &RunMonitor::onCancel);
    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(cancel_);
    backend_ = new ElidedLabel;
    backend_->setObjectName(QStringLiteral("runBackend"));

    grid_ = new QGridLayout;
    const QStringList headers = {tr("Phase"), tr("Progress"), tr("Elapsed"), tr("Throughput"),
                                 tr("ETA")};
    for (int c = 0; c < headers.size(); ++c) {
        auto* h = new QLabel(QStringLiteral("<b>%1</b>").arg(headers[c]));
        grid_->addWidget(h, 0, c);
    }
    grid_->setColumnStretch(1, 1);
    log_ = new QPlainTextEdit;
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(500);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(backend_);
    layout->addLayout(grid_);
    layout->addWidget(log_, 1);

    timer_ = new QTimer(this);
    timer_->setInterval(200);
    connect(timer_, &QTimer::timeout, this, &RunMonitor::tick);
    connect(run_, &RunController::started, this, &RunMonitor::onStarted);
    connect(run_, &RunController::phaseStarted, this, &RunMonitor::onPhaseStarted);
    connect(run_, &RunController::progress, this, &RunMonitor::onProgress);
    connect(run_, &RunController::phaseFinished, this, &RunMonitor::onPhaseFinished);
    connect(run_, &RunController::info, this, &RunMonitor::log);
    connect(run_, &RunController::finished, this, &RunMonitor::onFinished);
    connect(run_, &RunController::backendChosen, this, &RunMonitor::onBackendChosen);
}

QString RunMonitor::phaseState(const QString& phase) const {
    const auto it = rows_.constFind(phase);
    return it == rows_.constEnd() ? QString() : it->state;
}

QString RunMonitor::statusText() const {
    return status_->text();
}

QString RunMonitor::phaseEta(const QString& phase) const {
    const auto it = rows_.constFind(phase);
    return it == rows_.constEnd() ? QString() : it->eta->text();
}

QString RunMonitor::backendText() const {
    return backend_->text();
}

QString RunMonitor::logText() const {
    return log_->toPlainText();
}

void RunMonitor::onBackendChosen(const QString& reason) {
    backend_->setText(tr("Backend: %1").arg(reason));
    if (reason != lastBackend_) log(tr("backend: %1").arg(reason));
    lastBackend_ = reason;
}

void RunMonitor::onCancel() {
    cancelling_ = true;
    cancel_->setEnabled(false);
    for (Row& r : rows_)
        r.eta->clear();
    status_->setText(tr("Cancelling\u2026"));
    run_->cancel();
}

RunMonitor::Row& RunMonitor::row(const QString& phase) {
    auto it = rows_.find(phase);
    if (it != rows_.end()) return *it;
    Row r;
    const int line = int(order_.size()) + 1;
    r.name = new QLabel(phase);
    r.bar = new QProgressBar;
    r.bar->setRange(0, 0);  // busy until a total is known
    r.bar->setTextVisible(true);
    r.elapsed = new QLabel;
    r.rate = new QLabel;
    r.eta = new QLabel;
    grid_->addWidget(r.name, line, 0);
    grid_->addWidget(r.bar, line, 1);
    grid_->addWidget(r.elapsed, line, 2);
    grid_->addWidget(r.rate, line, 3);
    grid_->addWidget(r.eta, line, 4);
    order_ << phase;
    return *rows_.insert(phase, r);
}

void RunMonitor::onStarted() {
    for (Row& r : rows_) {
        for (QWidget* w : std::initializer_list<QWidget*>{r.name, r.bar, r.elapsed, r.rate, r.eta})
            delete w;
    }
    rows_.clear();
    order_.clear();
    log_->clear();
    total_.start();
    timer_->start();
    cancelling_ = false;
    cancel_->setEnabled(true);
    status_->setText(tr("Running\u2026"));
    log(tr("run started"));
}

void RunMonitor::onPhaseStarted(const QString& phase) {
    Row& r = row(phase);
    r.clock.start();
    r.state = QStringLiteral("running");
    r.done = r.total = 0;
    r.bar->setRange(0, 0);
}

void RunMonitor::onProgress(const QString& phase, quint64 done, quint64 total) {
    Row& r = row(phase);
    if (!r.clock.isValid()) r.clock.start();
    r.done = done;
    r.total = total;
    if (total > 0) {
        r.bar->setRange(0, 1000);
        r.bar->setValue(int(1000.0 * double(std::min(done, total)) / double(total)));
    }
    const double elapsed = double(r.clock.elapsed()) / 1000.0;
    if (elapsed > 0.05 && done > 0) {
        const double rate = double(done) / elapsed;
        r.rate->setText(formatRate(phase, rate));
        r.eta->setText(total > done && !cancelling_ ? formatSeconds(double(total - done) / rate)
                                                    : QString());
    }
}

void RunMonitor::onPhaseFinished(const QString& phase, double seconds, quint64 items, quint64 bytes,
                                 bool reused) {
    Row& r = row(phase);
    r.state = reused ? QStringLiteral("reused") : QStringLiteral("done");
    r.bar->setRange(0, 1000);
    r.bar->setValue(1000);
    r.bar->setFormat(reused ? tr("reused from the project") : tr("done"));
    r.elapsed->setText(formatSeconds(seconds));
    r.eta->clear();
    if (showsRates(seconds)) {
        const double per = double(countsBytes(phase) ? bytes : items) / seconds;
        r.rate->setText(countsBytes(phase) ? formatRate(phase, per) : rateText(per, tr("items/s")));
    } else {
        r.rate->clear();
    }
}

void RunMonitor::onFinished(const QString& status, qint64 runId, const QString& message) {
    timer_->stop();
    cancel_->setEnabled(false);
    cancelling_ = false;
    for (Row& r : rows_) {
        r.eta->clear();  // nothing is left to wait for, whatever the run's end
        if (r.state == QLatin1String("running")) {
            r.state = status;
            r.bar->setRange(0, 1000);
            r.bar->setFormat(status);
        }
    }
    const double secs = double(total_.elapsed()) / 1000.0;
    status_->setText(status == QLatin1String("ok")
                         ? tr("Run %1 finished in %2.").arg(runId).arg(formatSeconds(secs))
                         : tr("Run %1 after %2: %3").arg(status, formatSeconds(secs), message));
    log(message);
}

void RunMonitor::tick() {
    for (Row& r : rows_)
        if (r.state == QLatin1String("running") && r.clock.isValid())
            r.elapsed->setText(formatSeconds(double(r.clock.elapsed()) / 1000.0));
    const QString elapsed = formatSeconds(double(total_.elapsed()) / 1000.0);
    status_->setText(cancelling_ ? tr("Cancelling\u2026 %1").arg(elapsed)
                                 : tr("Running\u2026 %1").arg(elapsed));
}

void RunMonitor::log(const QString& line) {
    log_->appendPlainText(QTime::currentTime().toString(QStringLiteral("HH:mm:ss  ")) + line);
}

}  // namespace neardup::ui
