// The start page shown while no project is open, and the bundled sample (startpage.h).
#include "startpage.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

inline void initSampleResource() {
    // The resource lives in this static library: it must be registered by name.
    Q_INIT_RESOURCE(samples);
}

namespace neardup::ui {

StartPage::StartPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("startPage"));
    auto* title =
        new QLabel(tr("<h2>NearDup Workbench</h2>"
                      "<p>Find near-duplicate documents with MinHash-LSH: tune, "
                      "audit, export.</p>"));
    title->setWordWrap(true);
    auto* create = new QPushButton(tr("New Project\u2026"));
    auto* open = new QPushButton(tr("Open Project\u2026"));
    sample_ = new QPushButton(tr("Open the Sample"));
    sample_->setObjectName(QStringLiteral("openSampleButton"));
    sample_->setToolTip(
        tr("A project of the bundled 400-document sample, run with the default parameters"));
    connect(create, &QPushButton::clicked, this, &StartPage::newProjectRequested);
    connect(open, &QPushButton::clicked, this, &StartPage::openProjectRequested);
    connect(sample_, &QPushButton::clicked, this, &StartPage::sampleRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(create);
    buttons->addWidget(open);
    buttons->addWidget(sample_);
    buttons->addStretch(1);

    recent_ = new QListWidget;
    recent_->setObjectName(QStringLiteral("recentProjectsList"));
    recent_->setTextElideMode(Qt::ElideMiddle);
    connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit recentChosen(item->data(Qt::UserRole).toString());
    });
    connect(recent_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        emit recentChosen(item->data(Qt::UserRole).toString());
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addWidget(title);
    layout->addLayout(buttons);
    layout->addSpacing(12);
    layout->addWidget(new QLabel(tr("<b>Recent projects</b>")));
    layout->addWidget(recent_, 1);
}

void StartPage::setRecentProjects(const QStringList& paths) {
    recent_->clear();
    for (const QString& p : paths) {
        auto* item = new QListWidgetItem(QFileInfo(p).fileName() + QStringLiteral("  \u2014  ") +
                                         QFileInfo(p).absolutePath());
        item->setData(Qt::UserRole, p);
        item->setToolTip(p);
        recent_->addItem(item);
    }
    if (paths.isEmpty()) {
        auto* none = new QListWidgetItem(tr("No recent projects."));
        none->setFlags(Qt::NoItemFlags);
        recent_->addItem(none);
    }
}

QString writeSampleCorpus(const QString& folder) {
    initSampleResource();
    if (!QDir().mkpath(folder)) return {};
    const QString path = QDir(folder).filePath(QStringLiteral("sample.jsonl"));
    if (QFileInfo::exists(path)) return path;
    // Through a temporary name: a half-written copy is never taken for the sample.
    const QString partial = path + QStringLiteral(".part");
    QFile::remove(partial);
    if (!QFile::copy(QStringLiteral(":/samples/sample.jsonl"), partial)) return {};
    QFile::setPermissions(
        partial, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    if (!QFile::rename(partial, path)) return {};
    return path;
}

}  // namespace neardup::ui
