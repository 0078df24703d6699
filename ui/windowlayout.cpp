// Window geometry and dock layout: fitting the screen, saving and restoring (windowlayout.h).
#include "windowlayout.h"

#include <QMainWindow>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>

namespace neardup::ui {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
// Raised when the docks change so that an old layout is not applied to new docks.
constexpr int kDockLayoutVersion = 2;
// Room left for the window frame and title bar, which the platform adds around the window.
const QSize kFrameAllowance(16, 48);

}  // namespace

QScrollArea* scrollable(QWidget* content) {
    auto* area = new QScrollArea;
    area->setObjectName(content->objectName() + QStringLiteral("Scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(content);
    return area;
}

void placeOnScreen(QWidget* window, QSize preferred) {
    const QScreen* screen = window->screen();
    if (!screen) {
        window->resize(preferred);
        return;
    }
    const QRect available = screen->availableGeometry();
    const QSize size = preferred.boundedTo(available.size() - kFrameAllowance);
    window->resize(size);
    window->move(available.topLeft() + QPoint((available.width() - size.width()) / 2,
                                              (available.height() - size.height()) / 2));
}

void saveWindowLayout(const QMainWindow& window) {
    QSettings settings;
    settings.setValue(kGeometryKey, window.saveGeometry());
    settings.setValue(kStateKey, window.saveState(kDockLayoutVersion));
}

bool restoreWindowLayout(QMainWindow& window) {
    const QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    const QByteArray state = settings.value(kStateKey).toByteArray();
    if (geometry.isEmpty()) return false;
    // restoreGeometry moves a window saved on a screen that is gone back onto this one.
    if (!window.restoreGeometry(geometry)) return false;
    if (!state.isEmpty()) window.restoreState(state, kDockLayoutVersion);
    return true;
}

}  // namespace neardup::ui
