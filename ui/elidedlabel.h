// A one-line label that never asks for more width than it has: text longer than the label is
// drawn elided (in the middle, where paths and URLs differ least usefully) and shown whole in
// the tooltip. Long document ids, project paths and run messages would otherwise widen the
// window past the screen.
#pragma once

#include <QLabel>

namespace neardup::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
  public:
    explicit ElidedLabel(const QString& text = {}, QWidget* parent = nullptr);

    // Plain text only; line breaks are shown as spaces. text() stays the whole text.
    void setText(const QString& text);
    void clear();
    // Whether the text drawn is shortened at the current width.
    bool isElided() const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    QString shown() const;
};

}  // namespace neardup::ui
