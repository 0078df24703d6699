// Numbers as the workbench shows them, in one place: counts grouped by the user's locale
// ("1,740" in English, "1.740" in German). The C locale groups nothing, so under it (LANG=C,
// a bare container) counts are grouped as in English, as the HTML report groups them, and a
// count never reads "1740" in one place and "1,740" in another. Identifiers (run, cluster and
// document numbers, bands) are not counts and stay as they are.
#pragma once

#include <QLocale>
#include <QString>
#include <QtGlobal>

namespace neardup::ui {

// The locale counts and rates are written in.
QLocale numberLocale();

// 1740 -> "1,740".
QString countText(quint64 n);
inline QString countText(qint64 n) {
    return n < 0 ? numberLocale().toString(n) : countText(quint64(n));
}
inline QString countText(int n) {
    return countText(qint64(n));
}
inline QString countText(unsigned n) {
    return countText(quint64(n));
}
inline QString countText(unsigned long n) {
    return countText(quint64(n));
}
inline QString countText(long n) {
    return countText(qint64(n));
}

// `v` with `decimals` digits after the locale's decimal point, grouped: 13356745.2, 0 ->
// "13,356,745".
QString decimalText(double v, int decimals);

// A rate: decimalText(perSecond, decimals) and the unit, "13,356,745 items/s".
QString rateText(double perSecond, const QString& unit, int decimals = 0);

}  // namespace neardup::ui
