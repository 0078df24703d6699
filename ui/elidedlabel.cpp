// ElidedLabel: draws its text elided to its width, whole in the tooltip (elidedlabel.h).
#include "elidedlabel.h"

#include <QPainter>
#include <QStyle>
#include <algorithm>

namespace neardup::ui {

namespace {

QString oneLine(QString text) {
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

}  // namespace

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setText(text);
}

void ElidedLabel::setText(const QString& text) {
    QLabel::setText(text);
    setToolTip(text);
}

void ElidedLabel::clear() {
    setText(QString());
}

bool ElidedLabel::isElided() const {
    return shown() != oneLine(text());
}

QString ElidedLabel::shown() const {
    return fontMetrics().elidedText(oneLine(text()), Qt::ElideMiddle,
                                    contentsRect().width() - 2 * margin());
}

QSize ElidedLabel::minimumSizeHint() const {
    // A few characters and the ellipsis; the height of one line.
    const int frame = 2 * (margin() + frameWidth());
    return {fontMetrics().horizontalAdvance(QStringLiteral("MMM\u2026")) + frame,
            fontMetrics().height() + frame};
}

QSize ElidedLabel::sizeHint() const {
    // Asks for the whole line but never more than a third of a small screen: the layout gives
    // what is left, and the rest is elided.
    const int frame = 2 * (margin() + frameWidth());
    const int whole = fontMetrics().horizontalAdvance(oneLine(text())) + frame + 4;
    return {std::min(whole, 420), fontMetrics().height() + frame};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    drawFrame(&painter);
    const QRect area = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    style()->drawItemText(&painter, area, int(alignment()) | Qt::TextSingleLine, palette(),
                          isEnabled(), shown(), foregroundRole());
}

}  // namespace neardup::ui
