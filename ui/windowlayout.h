// How the workbench window fits the screen and comes back as the user left it: docks whose
// content scrolls instead of pushing the window, a first size bounded by the screen, and the
// geometry and dock layout saved in QSettings on close and restored at start.
#pragma once

#include <QSize>

class QMainWindow;
class QScrollArea;
class QWidget;

namespace neardup::ui {

// `content` in a frameless scroll area that gives it the whole viewport when there is room
// and scroll bars when there is not: a panel's minimum size never pushes its dock or window.
QScrollArea* scrollable(QWidget* content);

// Resizes `window` to `preferred`, bounded by the available geometry of its screen (frame
// included), and centres it there.
void placeOnScreen(QWidget* window, QSize preferred);

// Saves the window's geometry and dock layout (QSettings, group "window").
void saveWindowLayout(const QMainWindow& window);
// Restores what saveWindowLayout saved; false when nothing was saved (or it does not fit this
// version's docks), leaving the window as it is.
bool restoreWindowLayout(QMainWindow& window);

}  // namespace neardup::ui
