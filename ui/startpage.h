// What the window shows while no project is open: New Project, Open Project, the recent
// projects (a click opens one) and "Open the sample", which makes a project of the bundled
// sample corpus and runs it with the default parameters.
#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;
class QPushButton;

namespace neardup::ui {

class StartPage : public QWidget {
    Q_OBJECT
  public:
    explicit StartPage(QWidget* parent = nullptr);

    void setRecentProjects(const QStringList& paths);
    QListWidget* recentList() const { return recent_; }
    QPushButton* sampleButton() const { return sample_; }

  signals:
    void newProjectRequested();
    void openProjectRequested();
    void sampleRequested();
    void recentChosen(const QString& path);

  private:
    QListWidget* recent_;
    QPushButton* sample_;
};

// Copies the bundled sample corpus (a Qt resource) into `folder` unless it is there already;
// the path of the copy, or empty when it cannot be written.
QString writeSampleCorpus(const QString& folder);

}  // namespace neardup::ui
